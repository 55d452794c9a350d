import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { MemoryIdempotencyStore, RedisIdempotencyStore, type IdempotencyStore } from '../../../plugins/graphql/index.ts'
import { REDIS_URL } from './fixtures.ts'

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

/** The contract both stores keep. */
async function contract (t: Test, store: IdempotencyStore): Promise<void> {
  const mine = { fingerprint: 'f1', owner: 'me' }
  t.equal(await store.claim('k', mine, 60_000), null, 'a free key is claimed')
  t.same(await store.claim('k', { fingerprint: 'f2', owner: 'you' }, 60_000), mine, 'a claimed key answers its record')
  await store.complete('k', { fingerprint: 'f1', owner: 'you', result: { stolen: true } }, 60_000)
  t.same(await store.claim('k', mine, 60_000), mine, 'only the owner completes')
  await store.release('k', 'you')
  t.same(await store.claim('k', mine, 60_000), mine, 'only the owner releases')
  await store.complete('k', { ...mine, result: { paymentId: 'p1' } }, 60_000)
  t.same(await store.claim('k', { fingerprint: 'f1', owner: 'later' }, 60_000), { ...mine, result: { paymentId: 'p1' } }, 'completed records replay')
  await store.release('k', 'me')
  t.equal(await store.claim('k', { fingerprint: 'f3', owner: 'new' }, 60_000), null, 'released keys are free again')
}

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

t.test('redis store', async (t) => {
  const client = new Redis(REDIS_URL)
  const prefix = `test:graphql-stores:${randomUUID()}:`
  t.teardown(async () => {
    const keys = await client.keys(`${prefix}*`)
    if (keys.length > 0) await client.unlink(keys)
    await client.quit()
  })
  const store = new RedisIdempotencyStore(client, prefix)
  t.equal(store.keyPrefix, `${prefix}graphql:`)
  await contract(t, store)
  await store.claim('timed', { fingerprint: 'f', owner: 'o' }, 30_000)
  const lockTtl = await client.pttl(`${prefix}graphql:timed`)
  t.ok(lockTtl > 0 && lockTtl <= 30_000, 'claims expire by themselves')
  await store.complete('timed', { fingerprint: 'f', owner: 'o', result: 1 }, 86_400_000)
  const ttl = await client.pttl(`${prefix}graphql:timed`)
  t.ok(ttl > 30_000 && ttl <= 86_400_000, 'completed records live for the ttl')
  t.equal(new RedisIdempotencyStore(client).keyPrefix, 'paywire:graphql:', 'the default prefix is the backend\'s')
})
