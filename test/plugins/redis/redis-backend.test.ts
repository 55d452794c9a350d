import t from 'tap'
import { MemoryStorage, Payment, PaywireEvents, UnitOfWork, outboxRecord } from '../../../plugins/core/engine/index.ts'
import { recordKey } from '../../../plugins/redis/keys.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { backendContract } from '../../helpers/backend-contract.ts'
import { testRedis } from './fixtures.ts'

backendContract(t, async (t) => {
  const { client, prefix } = await testRedis(t, 'backend-contract')
  const backend = new RedisStorageBackend(client, { keyPrefix: prefix })
  return { backend, tokens: backend.createTokenStorage(), payments: backend.createStorage(Payment) }
})

t.test('a commit with a storage of another kind goes step by step, still compare-and-set', async (t) => {
  const { client, prefix } = await testRedis(t, 'backend-mixed')
  const backend = new RedisStorageBackend(client, { keyPrefix: prefix })
  const tokens = backend.createTokenStorage()
  const memory = new MemoryStorage(Payment)
  const payment = Object.assign(memory.create(), { number: 'MIXED' })
  await memory.update(payment)
  const claim = await tokens.claimModel(memory.identify(payment), 10_000)
  const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
  payment.description = 'in memory'
  unit.save(payment, memory)
  await unit.commit()
  t.equal((await memory.find(payment.id as string))?.description, 'in memory')
  t.ok(await tokens.claimModel(memory.identify(payment), 10_000), 'released')
})

t.test('records written before versions existed read as version 1', async (t) => {
  const { client, prefix } = await testRedis(t, 'backend-legacy')
  const payments = new RedisStorageBackend(client, { keyPrefix: prefix }).createStorage(Payment)
  await client.set(recordKey(prefix, 'Payment', 'legacy-1'), JSON.stringify({ id: 'legacy-1', number: 'OLD' }))
  const legacy = await payments.find('legacy-1') as Payment
  t.equal(legacy.number, 'OLD')
  t.equal(payments.versionOf(legacy), 1)
  legacy.description = 'migrated'
  await payments.update(legacy)
  t.match(await client.get(recordKey(prefix, 'Payment', 'legacy-1')), /^2 \{/, 'written back with its version')
})

t.test('a dispatcher pass on a single Redis: every due payment leased in one script, and the batches its handlers end together settled in one', async (t) => {
  const { client, prefix } = await testRedis(t, 'backend-pass')
  const { outbox } = new RedisStorageBackend(client, { keyPrefix: prefix })
  // Each payment's first events, committed before the dispatcher starts (as after a restart).
  const partitions = Array.from({ length: 10 }, (_, i) => `pass-${i}`)
  await outbox.append(partitions.flatMap((partition) => [1, 2].map((n) => outboxRecord({ id: `${partition}-${n}`, type: 'payment.captured' }, partition))))
  // Counted on this test's own client, by script (SHA-1), so other tests' traffic on the server does not count.
  const calls = new Map<string, number>()
  const evalsha = client.evalsha.bind(client) as (...args: unknown[]) => Promise<unknown>
  ;(client as unknown as { evalsha: unknown }).evalsha = async (sha: string, ...rest: unknown[]) => {
    calls.set(sha, (calls.get(sha) ?? 0) + 1)
    return await evalsha(sha, ...rest)
  }
  t.teardown(() => { delete (client as unknown as { evalsha?: unknown }).evalsha })
  const events = new PaywireEvents({ debug () {}, info () {}, warn () {}, error () {} }, { outbox })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.onAny((event) => { heard.push(event.id) })
  await events.drain()
  t.same(heard.sort(), partitions.flatMap((partition) => [`${partition}-1`, `${partition}-2`]).sort(), 'every event once')
  // Per payment, a lease and a settle each would be 20 scripts.
  const counts = [...calls.values()].sort()
  t.equal(counts.length, 2, 'two scripts: the pass\'s lease-and-read, and the settle')
  t.same(counts[0], 1, 'ten payments\' batches settled in one call')
  t.ok((counts[1] ?? 0) <= 2, `leased by the pass (${String(counts[1])} passes: drain() asks again once)`)
  t.same(await outbox.due(Date.now() + 60_000, 100), [], 'nothing left due')
})
