/*
 * PostgresStorage and PostgresTokenStorage beyond the shared contract: typed columns,
 * findBy through the number index, jsonb containment and in-process criteria, paging,
 * inputs no record can match, and the token sweep.
 */
import t from 'tap'
import { Identity, MemoryStorage, Payment, Token, UnitOfWork } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, PostgresTokenStorage, columnsOf } from '../../../plugins/postgres/index.ts'
import { testPostgres } from './fixtures.ts'

const { pool, schema } = await testPostgres(t, 'storage')
const backend = new PostgresStorageBackend(pool, { schema })

function storage (modelName = `Payment${Math.random()}`) {
  return backend.createStorage(Payment, { modelName })
}

async function saved (payments: ReturnType<typeof storage>, fields: Partial<Payment>): Promise<Payment> {
  const payment = Object.assign(payments.create(), fields)
  await payments.update(payment)
  return payment
}

t.test('typed columns: number, status, amount and currency, when the record has them', async (t) => {
  t.same(columnsOf({ number: 'A-1', totalAmount: 1999, currencyCode: 'EUR', details: { status: 'captured' } }),
    { number: 'A-1', status: 'captured', amount: 1999, currency: 'EUR' })
  t.same(columnsOf({ details: { state: 'approved' } }).status, 'approved', 'PayPal\'s state')
  t.same(columnsOf({ status: 'done', details: { status: 'x' } }).status, 'done', 'a model\'s own status first')
  t.same(columnsOf({ number: 7, totalAmount: 1e300, details: null }), { number: null, status: null, amount: null, currency: null },
    'what a column cannot hold stays in the record only')
})

t.test('findBy: by number, by any field through containment, by array positions and absent fields in the process', async (t) => {
  const payments = storage()
  const a = await saved(payments, { number: 'A', clientEmail: 'zoë@example.com', totalAmount: 100, details: { id: 'PAY-A', items: [{ sku: 'x' }], paid: true } })
  const b = await saved(payments, { number: 'B', clientEmail: 'zoë@example.com', totalAmount: 200, details: { id: 'PAY-B', items: [{ sku: 'y' }], paid: false } })
  const ids = (found: Payment[]) => found.map((payment) => payment.id)
  t.same(ids(await payments.findBy({ number: 'A' })), [a.id])
  t.same(ids(await payments.findBy({ 'details.id': 'PAY-B' })), [b.id], 'a dotted path')
  t.same(ids(await payments.findBy({ clientEmail: 'zoë@example.com' })), [a.id, b.id], 'creation order')
  t.same(ids(await payments.findBy({ clientEmail: 'zoë@example.com' }, { offset: 1, limit: 5 })), [b.id])
  t.same(ids(await payments.findBy({ totalAmount: 200 })), [b.id], 'a number')
  t.same(ids(await payments.findBy({ 'details.paid': false })), [b.id], 'a boolean')
  t.same(ids(await payments.findBy({ 'details.items.0.sku': 'x' })), [a.id], 'an array position, checked in the process')
  t.same(ids(await payments.findBy({ 'details.missing': undefined, number: 'B' })), [b.id], 'an absent field')
  t.same(ids(await payments.findBy({}, { limit: 1 })), [a.id])
  t.same(await payments.findBy({}, { limit: 0 }), [])
  t.same(await payments.findBy({ details: { id: 'PAY-A' } }), [], 'an object never equals a stored value, as in memory')
  t.same(await payments.findBy({ totalAmount: Number.NaN }), [])
  t.same(await payments.findBy({ number: 'A\u0000' }), [], 'a NUL character: no record can hold it')
  t.same(await payments.findBy({ 'bad\uD800key': 'A' }), [], 'a lone surrogate in a key')
})

t.test('ids and hashes no storage keeps find nothing, never an error', async (t) => {
  const payments = storage()
  t.equal(await payments.find('a\u0000b'), null)
  t.equal(await payments.find('\uDC00'), null)
  t.same(await payments.findMany(['\u0000', 'missing']), [null, null])
  const tokens = backend.createTokenStorage()
  t.equal(await tokens.find('x\u0000'), null)
  t.equal(await tokens.findUsed('x\u0000'), null)
  t.equal(await tokens.invalidate('x\u0000'), false)
  t.equal(await tokens.claim('x\u0000', 1000), null)
})

t.test('a model name keeps its records apart; find by another model\'s identity finds nothing', async (t) => {
  const payments = storage('Alpha')
  const others = storage('Beta')
  const payment = await saved(payments, { number: 'SAME' })
  t.equal(await others.find(payment.id as string), null)
  t.equal(await payments.find(new Identity(payment.id as string, 'Beta')), null)
  t.same(await others.findBy({ number: 'SAME' }), [])
})

t.test('expired tokens and claims are swept, at most once per interval, in the background of a save', async (t) => {
  let now = 0
  const tokens = new PostgresTokenStorage(pool, { schema, ttl: { capture: 0.05 }, sweepIntervalMs: 1000, now: () => now })
  const token = Object.assign(new Token(), { gatewayName: 'cash', targetUrl: 'https://shop.example/payment/capture/x', kind: 'capture' })
  await tokens.save([token])
  t.ok(await tokens.find(token.hash))
  const claim = await tokens.acquireClaim(`sweep-${Math.random()}`, 20)
  t.ok(claim)
  const count = async () => (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".tokens WHERE hash = $1`, [token.hash])).rows[0].n
  while (await tokens.find(token.hash) !== null) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(await count(), 1, 'expired: invisible at once, deleted later')
  await tokens.save([Object.assign(new Token(), { kind: 'notify' })])
  await tokens.settled()
  t.equal(await count(), 1, 'no sweep before the interval')
  now = 1000
  await tokens.save([Object.assign(new Token(), { kind: 'notify' })])
  await tokens.settled()
  t.equal(await count(), 0, 'swept')
  t.equal(await tokens.sweep(), 0, 'sweep() answers how many rows it deleted')
})

t.test('a commit with a storage of another kind goes step by step, still compare-and-set', async (t) => {
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

t.test('a token storage with claim keys of its own claims through them', async (t) => {
  class OwnKeys extends PostgresTokenStorage {
    override claimKey (identity: Identity): string {
      return `own:${identity.id}`
    }
  }
  const tokens = new OwnKeys(pool, { schema })
  const token = Object.assign(new Token(), { gatewayName: 'cash', targetUrl: 'https://shop.example/payment/capture/x', details: new Identity(`p-${Math.random()}`, 'Payment') })
  await tokens.save([token])
  const claimed = await tokens.claim(token.hash, 10_000)
  t.equal(claimed?.claim.key, `own:${token.details?.id}`)
  await t.rejects(tokens.claimModel(token.details as Identity, 10_000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  await tokens.releaseClaim(claimed!.claim)
  t.ok(await tokens.acquireClaim(`Payment:${token.details?.id}`, 10_000), 'the key the database computed was released')
})
