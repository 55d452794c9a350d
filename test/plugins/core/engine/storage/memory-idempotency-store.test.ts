import t from 'tap'
import { MemoryIdempotencyStore } from '../../../../../plugins/graphql/index.ts'
import { idempotencyStoreContract as contract } from '../../../../helpers/idempotency-contract.ts'

t.test('memory store', async (t) => {
  await contract(t, new MemoryIdempotencyStore())
})

t.test('memory store: claims expire after lockMs, completed records after their ttl, and expired entries are swept', async (t) => {
  let now = 1_000_000
  const store = new MemoryIdempotencyStore({ now: () => now })
  await store.claim('crashed', { fingerprint: 'f', owner: 'a' }, 1000)
  now += 1000
  t.equal(await store.claim('crashed', { fingerprint: 'f', owner: 'b' }, 1000), null, 'a crashed request\'s claim expires')
  await store.complete('crashed', { fingerprint: 'f', owner: 'b', result: 1 }, 5000)
  now += 4999
  t.same(await store.claim('crashed', { fingerprint: 'f', owner: 'c' }, 1000), { fingerprint: 'f', owner: 'b', result: 1 })
  now += 1
  await store.claim('other', { fingerprint: 'f', owner: 'c' }, 1000)
  t.equal(store.size, 2, 'not swept yet: at most once a minute')
  now += 60_000
  await store.claim('last', { fingerprint: 'f', owner: 'c' }, 1000)
  t.equal(store.size, 1, 'expired entries are gone')
  await store.complete('other', { fingerprint: 'f', owner: 'c', result: 2 }, 1000)
  t.equal(await store.claim('other', { fingerprint: 'f', owner: 'd' }, 1000), null, 'completing an expired claim stores nothing')
})
