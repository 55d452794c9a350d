import t from 'tap'
import {
  Identity, MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, Payment, Token, UnitOfWork, type Storage
} from '../../../../../plugins/core/engine/index.ts'

/** A storage of the application's own (not an AbstractStorage): the unit update()s it on its own. */
function customStorage (memory: MemoryStorage<Payment>, log: string[]): Storage<Payment> {
  return {
    modelName: 'Payment',
    create: () => new Payment(),
    support: (model: unknown): model is Payment => model instanceof Payment,
    update: async (model) => { log.push('custom update'); await memory.update(model) },
    delete: (model) => memory.delete(model),
    find: (id) => memory.find(id),
    findMany: (ids) => memory.findMany(ids),
    findBy: (criteria) => memory.findBy(criteria),
    identify: (model) => memory.identify(model),
    versionOf: (model) => memory.versionOf(model)
  }
}

t.test('with storages the backend does not own, the commit goes step by step: claim, models, tokens, release', async (t) => {
  const backend = new MemoryStorageBackend()
  const tokens = new MemoryTokenStorage()
  const log: string[] = []
  const memory = new MemoryStorage(Payment)
  const storage = customStorage(memory, log)
  const payment = Object.assign(new Payment(), { number: 'A' })
  await memory.update(payment)
  const token = new Token()
  token.details = new Identity(payment.id as string, 'Payment')
  await tokens.save([token])
  const claim = await tokens.claimModel(token.details, 10_000)
  const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
  payment.description = 'saved'
  unit.save(payment, storage)
  unit.invalidateToken(token.hash)
  await unit.commit()
  t.same(log, ['custom update'])
  t.equal(unit.written, 1)
  t.equal((await memory.find(payment.id as string))?.description, 'saved')
  t.equal(await tokens.find(token.hash), null, 'used up')
  t.ok(await tokens.claimModel(token.details, 10_000), 'released')
})

t.test('step by step, a lost claim is found before anything is written', async (t) => {
  const backend = new MemoryStorageBackend()
  const tokens = new MemoryTokenStorage()
  const log: string[] = []
  const memory = new MemoryStorage(Payment)
  const payment = Object.assign(new Payment(), { number: 'A' })
  await memory.update(payment)
  const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim: { key: 'Payment:x', id: 'gone' }, claimTtlMs: 10_000 })
  unit.save(payment, customStorage(memory, log))
  await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CLAIM_LOST' })
  t.same(log, [])
})

t.test('a unit marked lost by its heartbeat refuses checkpoints and commits', async (t) => {
  const backend = new MemoryStorageBackend()
  const tokens = backend.createTokenStorage()
  const payments = backend.createStorage(Payment)
  const payment = payments.create()
  await payments.update(payment)
  const claim = await tokens.claimModel(payments.identify(payment), 10_000)
  const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim })
  t.equal(unit.holdsClaim, true)
  unit.markClaimLost()
  t.equal(unit.holdsClaim, false)
  payment.description = 'x'
  unit.save(payment, payments)
  await t.rejects(unit.checkpoint(), { code: 'PAYWIRE_ERR_CLAIM_LOST' })
  await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CLAIM_LOST' })
  await unit.abandon()
  t.equal(unit.pending, 0)
  t.ok(await tokens.claimModel(payments.identify(payment), 10_000), 'abandon() released the claim')
})

t.test('two copies of one record in one unit are refused: one would erase the other', async (t) => {
  const backend = new MemoryStorageBackend()
  const payments = backend.createStorage(Payment)
  const payment = payments.create()
  await payments.update(payment)
  const first = await payments.find(payment.id as string) as Payment
  const second = await payments.find(payment.id as string) as Payment
  const unit = new UnitOfWork({ backend, tokenStorage: backend.createTokenStorage() })
  unit.save(first, payments)
  unit.save(second, payments)
  await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
})

t.test('an empty checkpoint or commit without a claim sends nothing', async (t) => {
  const backend = new MemoryStorageBackend()
  let commits = 0
  const commit = backend.commit.bind(backend)
  backend.commit = async (set, tokens) => { commits++; await commit(set, tokens) }
  const unit = new UnitOfWork({ backend, tokenStorage: backend.createTokenStorage() })
  await unit.checkpoint()
  await unit.commit()
  t.equal(commits, 0)
  await unit.abandon()
})
