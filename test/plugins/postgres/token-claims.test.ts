/*
 * The PostgreSQL token claim against a commit in flight, made deterministic: the commit
 * runs in a transaction this test holds open, the claim is sent, the test waits until
 * PostgreSQL reports it blocked on a lock (the barrier), then commits. The claim must read
 * the token as the commit left it (used), never as its starting snapshot had it. (The
 * commit's own refusal of a used token is in the backend contract.)
 */
import t from 'tap'
import { Identity, Payment, Token } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, type PostgresTokenStorage } from '../../../plugins/postgres/index.ts'
import { blockedOnALock, testPostgres } from './fixtures.ts'

const { pool, schema } = await testPostgres(t, 'claims')
const backend = new PostgresStorageBackend(pool, { schema })
const tokens = backend.createTokenStorage() as PostgresTokenStorage
const payments = backend.createStorage(Payment)

async function tokenOfNewPayment (): Promise<Token> {
  const payment = Object.assign(payments.create(), { number: `CLAIM-${Math.random()}`, totalAmount: 100, currencyCode: 'EUR' })
  await payments.update(payment)
  const token = new Token()
  token.gatewayName = 'offline'
  token.targetUrl = 'https://shop.example/payment/capture/x'
  token.afterUrl = 'https://shop.example/payment/done/y'
  token.details = new Identity(payment.id as string, 'Payment')
  await tokens.save([token])
  return token
}

t.test('a claim waiting on a commit that uses the token up answers "used" once it commits', async (t) => {
  const token = await tokenOfNewPayment()
  const first = await tokens.claim(token.hash, 10_000)
  const client = await pool.connect()
  t.teardown(() => client.release())
  await client.query('BEGIN')
  const payload = { writes: [], tokens: [token.hash], usedTtlMs: tokens.usedTokenTtlMs, claim: first?.claim, release: true }
  t.equal((await client.query(`SELECT "${schema}".paywire_commit($1::jsonb) AS answer`, [JSON.stringify(payload)])).rows[0].answer, 'ok')
  const second = tokens.claim(token.hash, 10_000).then((claimed) => claimed, (error: Error) => error)
  await blockedOnALock(pool, schema)
  await client.query('COMMIT')
  t.match(await second, { code: 'PAYWIRE_ERR_TOKEN_USED', afterUrl: token.afterUrl }, 'the second claim sees the token used')
  t.ok(await tokens.claimModel(token.details as Identity, 10_000), 'and took no claim')
})
