/*
 * The token's payment read with the token (ReadCache) on PostgreSQL: the capture's claim
 * reads the record in its statement, the done page reads token and record from one snapshot.
 * The claim's read must see what the claim's previous holder committed, even when that commit
 * ends while the statement waits for the claim (held open by the test, a barrier on the lock wait).
 */
import t from 'tap'
import { Identity, Payment, Token } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, type PostgresTokenStorage } from '../../../plugins/postgres/index.ts'
import { blockedOnALock, testPostgres } from './fixtures.ts'

const { pool, schema } = await testPostgres(t, 'claim_read')
const backend = new PostgresStorageBackend(pool, { schema })
const tokens = backend.createTokenStorage() as PostgresTokenStorage
const payments = backend.createStorage(Payment)
let statements = 0
const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
pool.query = ((...args: unknown[]) => { statements++; return query(...args) }) as typeof pool.query

async function paymentWithTokens (count: number): Promise<[Payment, Token[]]> {
  const payment = Object.assign(payments.create(), { number: `READ-${Math.random()}`, totalAmount: 100, currencyCode: 'EUR' })
  await payments.update(payment)
  const made = Array.from({ length: count }, () => {
    const token = new Token()
    token.gatewayName = 'offline'
    token.targetUrl = `https://shop.example/payment/capture/${Math.random()}`
    token.details = new Identity(payment.id as string, 'Payment')
    return token
  })
  await tokens.save(made)
  return [payment, made]
}

t.test('the claim reads the payment: the storage takes that copy, no second statement', async (t) => {
  const [payment, [token]] = await paymentWithTokens(1)
  const claimed = await tokens.claim(token!.hash, 10_000)
  t.ok(claimed?.reads, 'the record came with the claim')
  const before = statements
  const found = await payments.find(payment.id as string, { reads: claimed!.reads })
  t.equal(statements, before, 'read from the claim\'s copy')
  t.equal(found?.number, payment.number)
  await payments.find(payment.id as string, { reads: claimed!.reads })
  t.equal(statements, before + 1, 'taken once: read again afterwards')
  await tokens.releaseClaim(claimed!.claim)
})

t.test('the done page: token and payment in one statement', async (t) => {
  const [payment, [token]] = await paymentWithTokens(1)
  const before = statements
  const { token: read, reads } = await tokens.findAndRead(token!.hash)
  const found = await payments.find(payment.id as string, { reads })
  t.equal(statements - before, 1)
  t.equal(read?.hash, token!.hash)
  t.equal(found?.number, payment.number)
  t.same(await tokens.findAndRead('nope'), { token: null })
})

t.test('a claim that waited for the previous holder\'s commit reads the payment as that commit left it', async (t) => {
  const [payment, [first, second]] = await paymentWithTokens(2)
  const held = await tokens.claim(first!.hash, 10_000)
  const client = await pool.connect()
  t.teardown(() => client.release())
  await client.query('BEGIN')
  const record = { ...(await pool.query(`SELECT record FROM "${schema}".records WHERE id = $1`, [payment.id])).rows[0].record, totalAmount: 777 }
  const payload = { writes: [{ model: 'Payment', id: payment.id, expected: 1, record }], tokens: [], claim: held!.claim, release: true }
  t.equal((await client.query(`SELECT "${schema}".paywire_commit_search($1::jsonb) AS answer`, [JSON.stringify(payload)])).rows[0].answer, 'ok')
  const next = tokens.claim(second!.hash, 10_000)
  await blockedOnALock(pool, schema)
  await client.query('COMMIT')
  const claimed = await next
  t.ok(claimed, 'the claim is taken once the holder released it')
  const found = await payments.find(payment.id as string, { reads: claimed!.reads })
  t.equal(found?.totalAmount, 777, 'the committed write, not the statement\'s snapshot')
  await tokens.releaseClaim(claimed!.claim)
})
