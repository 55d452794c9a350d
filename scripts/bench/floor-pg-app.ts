/*
 * The PostgreSQL floor: the least work the benchmarked job takes with Fastify and pg, by
 * hand. It writes what Paywire writes when everything lives in PostgreSQL — a payment and
 * its two tokens, the capture token used up and the payment updated in one transaction —
 * and reads the done page. No library, no claim, no validation beyond what correctness needs.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'

export async function buildFloorPgApp (databaseUrl: string, schema: string): Promise<FastifyInstance> {
  // The same pool size as Paywire's plugin, so neither side wins on connections alone.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const s = `"${schema}"`
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
  await pool.query(`CREATE TABLE IF NOT EXISTS ${s}.payments (id text PRIMARY KEY, record jsonb NOT NULL)`)
  await pool.query(`CREATE TABLE IF NOT EXISTS ${s}.tokens (hash text PRIMARY KEY, payment text NOT NULL, after text, used boolean NOT NULL DEFAULT false, expires_at timestamptz NOT NULL)`)
  const app = Fastify()
  await app.register(formbody)
  app.addHook('onClose', async () => { await pool.end() })
  const token = () => randomBytes(32).toString('base64url')

  app.post('/prepare', async (request, reply) => {
    const body = request.body as { amount: string, currency: string }
    const payment = { id: randomUUID(), number: `F-${Date.now()}`, totalAmount: Math.round(Number(body.amount) * 100), currencyCode: body.currency, status: 'new' }
    const capture = token()
    const done = token()
    const origin = `${request.protocol}://${request.host}`
    // One statement: the payment and both tokens, atomically.
    await pool.query(`WITH p AS (INSERT INTO ${s}.payments (id, record) VALUES ($1, $2))
      INSERT INTO ${s}.tokens (hash, payment, after, expires_at) VALUES ($3, $1, $4, now() + interval '1 hour'), ($5, $1, NULL, now() + interval '1 day')`,
    [payment.id, payment, capture, `${origin}/done/${done}`, done])
    return reply.redirect(`${origin}/capture/${capture}`, 302)
  })

  app.get('/capture/:token', async (request, reply) => {
    const hash = (request.params as { token: string }).token
    const found = await pool.query<{ payment: string, after: string, record: { status: string } }>(`SELECT t.payment, t.after, p.record FROM ${s}.tokens t
      JOIN ${s}.payments p ON p.id = t.payment WHERE t.hash = $1 AND NOT t.used AND t.expires_at > now()`, [hash])
    const row = found.rows[0]
    if (row === undefined) return reply.code(404).send({ message: 'unknown token' })
    // The capture's writes in one transaction, as Paywire's commit: the payment, the token used up.
    await pool.query(`WITH t AS (UPDATE ${s}.tokens SET used = true WHERE hash = $1)
      UPDATE ${s}.payments SET record = $3 WHERE id = $2`, [hash, row.payment, { ...row.record, status: 'captured' }])
    return reply.redirect(row.after, 302)
  })

  app.get('/done/:token', async (request, reply) => {
    const found = await pool.query<{ record: { number: string, totalAmount: number, currencyCode: string, status: string } }>(`SELECT p.record FROM ${s}.tokens t
      JOIN ${s}.payments p ON p.id = t.payment WHERE t.hash = $1 AND t.expires_at > now()`, [(request.params as { token: string }).token])
    const payment = found.rows[0]?.record
    if (payment === undefined) return reply.code(404).send({ message: 'unknown token' })
    return { status: payment.status, payment: { number: payment.number, totalAmount: payment.totalAmount, currencyCode: payment.currencyCode, details: {} } }
  })
  return app
}
