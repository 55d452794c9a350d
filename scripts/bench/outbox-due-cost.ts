/*
 * What the dispatcher's pass costs with a backlog in the PostgreSQL outbox (issue 23):
 *   node --conditions=paywire-source --import tsx scripts/bench/outbox-due-cost.ts [--sizes 10000,100000]
 * For each size, a schema of its own at migration 5 (before the due index) gets that many
 * waiting events, two per partition (a payment's), 1 % of them retrying an hour from now;
 * due(now, 64) and nextDueAt() as they were are EXPLAINed (ANALYZE, BUFFERS); then migration 6
 * runs (its backfill timed) and the PostgresOutbox's own statements are EXPLAINed. Rows and
 * buffers do not depend on the machine's load; times do.
 */
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { MIGRATIONS, migrate } from '../../plugins/postgres/index.ts'

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' } } })
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })

async function explain (label: string, sql: string, values: unknown[]): Promise<void> {
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, values)
  console.log(`${label}\n${rows.map((row) => `    ${row['QUERY PLAN']}`).join('\n')}\n`)
}

try {
  for (const size of args.sizes.split(',').map(Number)) {
    const schema = `bench_due_${randomUUID().slice(0, 8)}`
    const s = `"${schema}"`
    try {
      await pool.query(`CREATE SCHEMA ${s}; CREATE TABLE ${s}.paywire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
      for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) {
        await pool.query(migration.sql(s))
        await pool.query(`INSERT INTO ${s}.paywire_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
      }
      const now = Date.now()
      await pool.query(`INSERT INTO ${s}.outbox (partition, id, type, event, due_ms)
        SELECT 'Payment:' || (n / 2), 'evt-' || n, 'payment.captured', '{}', CASE WHEN n % 100 = 0 THEN $2::bigint + 3600000 ELSE $2::bigint - 1000 END
        FROM generate_series(0, $1::int - 1) n`, [size, now])
      await pool.query(`ANALYZE ${s}.outbox`)
      console.log(`## ${size} waiting events, ${size / 2} partitions\n`)
      const heads = `SELECT DISTINCT ON (partition) partition, due_ms FROM ${s}.outbox WHERE dead_at IS NULL ORDER BY partition, seq`
      await explain('before, due(now, 64):', `SELECT partition FROM (${heads}) heads WHERE due_ms <= $1 ORDER BY due_ms LIMIT $2`, [now, 64])
      await explain('before, nextDueAt():', `SELECT min(due_ms) AS next FROM (${heads}) heads`, [])
      const started = performance.now()
      await migrate(pool, schema)
      console.log(`migration 6 (backfill of ${size / 2} partitions): ${(performance.now() - started).toFixed(0)} ms\n`)
      await pool.query(`ANALYZE ${s}.outbox_due`)
      await explain('after, due(now, 64):', `SELECT partition FROM ${s}.outbox_due WHERE due_ms <= $1 ORDER BY due_ms LIMIT $2`, [now, 64])
      await explain('after, nextDueAt():', `SELECT min(due_ms) AS next FROM ${s}.outbox_due`, [])
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`)
    }
  }
} finally {
  await pool.end()
}
