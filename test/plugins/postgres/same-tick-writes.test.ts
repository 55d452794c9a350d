/*
 * The prepare's writes in one statement: a token save and a record's write started in the
 * same tick (as Paywire#prepareCapture starts them) go to PostgreSQL together, and each
 * keeps its own outcome when the statement fails.
 */
import t from 'tap'
import { Identity, Payment, Token } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, type PostgresTokenStorage } from '../../../plugins/postgres/index.ts'
import { testPostgres } from './fixtures.ts'

const { pool, schema } = await testPostgres(t, 'same_tick')
const backend = new PostgresStorageBackend(pool, { schema })
const tokens = backend.createTokenStorage() as PostgresTokenStorage
const payments = backend.createStorage(Payment)

let statements = 0
const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
pool.query = ((...args: unknown[]) => { statements++; return query(...args) }) as typeof pool.query

function tokenFor (payment: Payment): Token {
  const token = new Token()
  token.gatewayName = 'offline'
  token.targetUrl = `https://shop.example/payment/capture/${Math.random()}`
  token.details = new Identity(payment.id as string, 'Payment')
  return token
}

function newPayment (): Payment {
  const payment = Object.assign(payments.create(), { number: `TICK-${Math.random()}`, totalAmount: 100, currencyCode: 'EUR' })
  payments.assignId?.(payment)
  return payment
}

t.test('a token save and a write of the same tick: one statement, both stored', async (t) => {
  const payment = newPayment()
  const token = tokenFor(payment)
  const before = statements
  await Promise.all([tokens.save([token]), payments.update(payment)])
  t.equal(statements - before, 1, 'one statement')
  t.equal((await tokens.find(token.hash))?.hash, token.hash, 'the token is stored')
  t.equal((await payments.find(payment.id as string))?.number, payment.number, 'the payment is stored')
})

t.test('a write that lost its compare-and-set fails alone: the token of the same tick is stored', async (t) => {
  const payment = newPayment()
  await payments.update(payment)
  const stale = await payments.find(payment.id as string) as Payment
  payment.totalAmount = 200
  await payments.update(payment)
  stale.totalAmount = 300
  const token = tokenFor(payment)
  const [saved, written] = await Promise.allSettled([tokens.save([token]), payments.update(stale)])
  t.equal(saved.status, 'fulfilled')
  t.match(written, { status: 'rejected', reason: { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' } })
  t.equal((await tokens.find(token.hash))?.hash, token.hash, 'the token is stored')
  t.equal((await payments.find(payment.id as string))?.totalAmount, 200, 'the newer write stays')
})

t.test('writes that do not meet in a tick go as before, one statement each', async (t) => {
  const payment = newPayment()
  const before = statements
  await payments.update(payment)
  await tokens.save([tokenFor(payment)])
  await Promise.all([tokens.save([tokenFor(payment)]), tokens.save([tokenFor(payment)])])
  t.equal(statements - before, 4)
})
