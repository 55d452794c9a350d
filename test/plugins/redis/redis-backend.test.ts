import t from 'tap'
import { MemoryStorage, Payment, UnitOfWork } from '../../../plugins/core/engine/index.ts'
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
