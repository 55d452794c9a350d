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
  // Counted on the client's own script commands (defineCommand), so other tests' traffic on the server does not count.
  const calls: Record<string, number> = {}
  const commands = client as unknown as Record<string, (...args: unknown[]) => unknown>
  for (const name of ['paywireOutboxLeaseDue', 'paywireOutboxLeaseBatch', 'paywireOutboxSettleMany', 'paywireOutboxSettleBatch']) {
    const command = commands[name]
    if (command === undefined) continue
    commands[name] = function (this: unknown, ...args: unknown[]) {
      calls[name] = (calls[name] ?? 0) + 1
      return command.apply(this, args)
    }
    t.teardown(() => { commands[name] = command })
  }
  const events = new PaywireEvents({ debug () {}, info () {}, warn () {}, error () {} }, { outbox })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.onAny((event) => { heard.push(event.id) })
  await events.drain()
  t.same(heard.sort(), partitions.flatMap((partition) => [`${partition}-1`, `${partition}-2`]).sort(), 'every event once')
  t.equal(calls.paywireOutboxSettleMany, 1, 'ten payments\' batches settled in one script')
  t.equal(calls.paywireOutboxLeaseBatch, undefined, 'no payment leased on its own')
  t.ok((calls.paywireOutboxLeaseDue ?? 0) >= 1 && (calls.paywireOutboxLeaseDue ?? 0) <= 2, `leased by the pass (${String(calls.paywireOutboxLeaseDue)} passes: drain() asks again once)`)
  t.same(await outbox.due(Date.now() + 60_000, 100), [], 'nothing left due')
})
