/*
 * The guaranteed floor on PostgreSQL: the least work the benchmarked flow takes with exactly
 * the guarantees Paywire gives it, by hand with Fastify and pg. Where the bare pg floor
 * (floor-pg-app.ts) skips them, this one keeps, one statement (so one transaction) per step:
 *   - prepare: the payment inserted at version 1 (a compare-and-set against "no record") and
 *     both tokens;
 *   - capture, claim and read: the token found unused, the payment's claim taken (an UNLOGGED
 *     row that expires, as Paywire's claims: two tabs or instances cannot capture twice) and
 *     the payment read with its version;
 *   - capture, commit: the claim checked and released, the payment written only over the
 *     version read and only while the token is unused, the token used up, the event inserted
 *     in the outbox: all or nothing;
 *   - done: the token and the payment read;
 *   - a minimal outbox drain, at least once and in order per payment: one statement leases the
 *     payments with due events and reads them, the handler runs, one statement deletes what
 *     was delivered and releases the leases.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import formbody from '@fastify/formbody'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'

interface Payment { id: string, number: string, totalAmount: number, currencyCode: string, status: string }

const BATCH = 100
const LEASE_MS = 30_000

export async function buildGuaranteedFloorPgApp (databaseUrl: string, schema: string): Promise<FastifyInstance> {
  // The same pool size as Paywire's plugin, so neither side wins on connections alone.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const s = `"${schema}"`
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${s};
    CREATE TABLE IF NOT EXISTS ${s}.payments (id text PRIMARY KEY, version bigint NOT NULL, record jsonb NOT NULL);
    CREATE TABLE IF NOT EXISTS ${s}.tokens (hash text PRIMARY KEY, payment text NOT NULL, after text, used boolean NOT NULL DEFAULT false, expires_at timestamptz NOT NULL);
    CREATE UNLOGGED TABLE IF NOT EXISTS ${s}.claims (payment text PRIMARY KEY, id text NOT NULL, expires_at timestamptz NOT NULL);
    CREATE TABLE IF NOT EXISTS ${s}.outbox (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, partition text NOT NULL, event text NOT NULL, due_ms bigint NOT NULL);
    CREATE INDEX IF NOT EXISTS outbox_partition ON ${s}.outbox (partition, seq);
    CREATE UNLOGGED TABLE IF NOT EXISTS ${s}.outbox_leases (partition text PRIMARY KEY, id text NOT NULL, expires_at timestamptz NOT NULL)`)
  const app = Fastify()
  await app.register(formbody)
  const token = () => randomBytes(32).toString('base64url')

  // The shop's handler: what Paywire's demo does on payment.captured with logging off.
  let delivered = 0
  const handler = (event: { type: string }) => { if (event.type === 'payment.captured') delivered++ }
  let draining: Promise<void> | undefined
  let again = false
  async function drainOnce (): Promise<boolean> {
    const leaseId = randomUUID()
    const { rows } = await pool.query<{ seq: string, event: string, partitions: number }>(`WITH due AS (
        SELECT DISTINCT partition FROM ${s}.outbox WHERE due_ms <= $1 LIMIT $2
      ), leased AS (
        INSERT INTO ${s}.outbox_leases (partition, id, expires_at) SELECT partition, $3, clock_timestamp() + $4 * interval '1 millisecond' FROM due
        ON CONFLICT (partition) DO UPDATE SET id = EXCLUDED.id, expires_at = EXCLUDED.expires_at WHERE ${s}.outbox_leases.expires_at <= clock_timestamp()
        RETURNING partition
      )
      SELECT o.seq, o.event, (SELECT count(*) FROM due)::int AS partitions FROM ${s}.outbox o JOIN leased l ON l.partition = o.partition ORDER BY o.partition, o.seq`,
    [Date.now(), BATCH, leaseId, LEASE_MS])
    if (rows.length === 0) return false
    for (const row of rows) handler(JSON.parse(row.event) as { type: string })
    await pool.query(`WITH released AS (DELETE FROM ${s}.outbox_leases WHERE id = $1 AND expires_at > clock_timestamp() RETURNING partition)
      DELETE FROM ${s}.outbox WHERE seq = ANY($2::bigint[]) AND partition IN (SELECT partition FROM released)`, [leaseId, rows.map((row) => row.seq)])
    return (rows[0] as { partitions: number }).partitions === BATCH
  }
  function drain (): void {
    if (draining !== undefined) {
      again = true
      return
    }
    draining = (async () => {
      do {
        again = false
        try {
          if (await drainOnce()) again = true
        } catch {
          // The poll below tries again.
        }
      } while (again)
    })().finally(() => { draining = undefined })
  }
  const poller = setInterval(drain, 1000)
  app.addHook('onClose', async () => {
    clearInterval(poller)
    await draining
    await pool.end()
  })

  app.post('/prepare', async (request, reply) => {
    const body = request.body as { amount: string, currency: string }
    const payment: Payment = { id: randomUUID(), number: `F-${Date.now()}`, totalAmount: Math.round(Number(body.amount) * 100), currencyCode: body.currency, status: 'new' }
    const capture = token()
    const done = token()
    const origin = `${request.protocol}://${request.host}`
    await pool.query(`WITH p AS (INSERT INTO ${s}.payments (id, version, record) VALUES ($1, 1, $2))
      INSERT INTO ${s}.tokens (hash, payment, after, expires_at) VALUES ($3, $1, $4, now() + interval '1 hour'), ($5, $1, NULL, now() + interval '1 day')`,
    [payment.id, payment, capture, `${origin}/done/${done}`, done])
    return reply.redirect(`${origin}/capture/${capture}`, 302)
  })

  app.get('/capture/:token', async (request, reply) => {
    const hash = (request.params as { token: string }).token
    const claimId = randomUUID()
    const { rows } = await pool.query<{ payment: string, after: string, claimed: string | null, version: string, record: Payment }>(`WITH t AS (
        SELECT payment, after FROM ${s}.tokens WHERE hash = $1 AND NOT used AND expires_at > now()
      ), c AS (
        INSERT INTO ${s}.claims (payment, id, expires_at) SELECT payment, $2, clock_timestamp() + interval '30 seconds' FROM t
        ON CONFLICT (payment) DO UPDATE SET id = EXCLUDED.id, expires_at = EXCLUDED.expires_at WHERE ${s}.claims.expires_at <= clock_timestamp()
        RETURNING payment
      )
      SELECT t.payment, t.after, c.payment AS claimed, p.version, p.record FROM t JOIN ${s}.payments p ON p.id = t.payment LEFT JOIN c ON c.payment = t.payment`,
    [hash, claimId])
    const row = rows[0]
    if (row === undefined) return reply.code(404).send({ message: 'unknown token' })
    if (row.claimed === null) return reply.code(409).send({ message: 'payment busy' })
    const payment = { ...row.record, status: 'captured' }
    const event = JSON.stringify({ id: randomUUID(), type: 'payment.captured', occurredAt: new Date().toISOString(), status: 'captured', payment })
    // Each part runs only if the one before it did: the claim still ours, then the version and the token.
    const { rows: written } = await pool.query<{ written: number }>(`WITH c AS (
        DELETE FROM ${s}.claims WHERE payment = $1 AND id = $2 AND expires_at > clock_timestamp() RETURNING payment
      ), p AS (
        UPDATE ${s}.payments SET version = version + 1, record = $3 WHERE id = $1 AND version = $4
          AND EXISTS (SELECT 1 FROM c) AND EXISTS (SELECT 1 FROM ${s}.tokens WHERE hash = $5 AND NOT used) RETURNING id
      ), t AS (
        UPDATE ${s}.tokens SET used = true WHERE hash = $5 AND NOT used AND EXISTS (SELECT 1 FROM p) RETURNING hash
      ), o AS (
        INSERT INTO ${s}.outbox (partition, event, due_ms) SELECT id, $6, $7 FROM p RETURNING seq
      )
      SELECT (SELECT count(*) FROM p)::int AS written`, [row.payment, claimId, payment, row.version, hash, event, Date.now()])
    if (written[0]?.written !== 1) return reply.code(409).send({ message: 'conflict' })
    drain()
    return reply.redirect(row.after, 302)
  })

  app.get('/done/:token', async (request, reply) => {
    const found = await pool.query<{ record: Payment }>(`SELECT p.record FROM ${s}.tokens t
      JOIN ${s}.payments p ON p.id = t.payment WHERE t.hash = $1 AND t.expires_at > now()`, [(request.params as { token: string }).token])
    const payment = found.rows[0]?.record
    if (payment === undefined) return reply.code(404).send({ message: 'unknown token' })
    return { status: payment.status, payment: { number: payment.number, totalAmount: payment.totalAmount, currencyCode: payment.currencyCode, details: {} } }
  })
  app.get('/__bench/delivered', async () => ({ delivered }))
  return app
}
