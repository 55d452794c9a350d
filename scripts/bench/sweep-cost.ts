/*
 * `npm run bench:sweep [-- --sizes 10000,1000000] [-- --repeat 200]`: what one reconciliation
 * sweep's candidate read costs with many stored payments (issue 24). For each size, a
 * PostgreSQL schema of its own (made by the project's migrations, dropped at the end) gets that
 * many payments' facets in one INSERT … SELECT FROM generate_series — most settled (no
 * attention), DUE due, BACKING_OFF waiting for a later look — and a Redis of its own (a
 * private redis-server, so its command counters are this script's alone) gets the same facets
 * through RedisStorage#indexPayment(), so the key layout is the storage's own. Then, through the
 * real storages as the sweeper calls them: attentionDue(now, 500) REPEAT times (median, p99),
 * the query's EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL and the commands and their server time
 * on Redis, and two operator search pages. Latencies depend on the machine's load; rows,
 * buffers and commands do not.
 */
import { performance } from 'node:perf_hooks'
import { randomUUID } from 'node:crypto'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import pg from 'pg'
import { Payment, type PaymentFacets } from '../../plugins/core/engine/index.ts'
import { migrate, PostgresStorage } from '../../plugins/postgres/index.ts'
import { RedisStorage } from '../../plugins/redis/index.ts'
import { percentile } from './load.ts'
import { startRedis } from './processes.ts'

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '10000,1000000' }, repeat: { type: 'string', default: '200' } } })
const SIZES = args.sizes.split(',').map(Number)
const REPEAT = Number(args.repeat)
/** Payments the sweeper should look at now, and those backing off (a look planned within the hour). */
const DUE = 3000
const BACKING_OFF = 2000
const LIMIT = 500
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000)

/** The facets rows, computed by PostgreSQL: the newest payments are the pending ones. */
function fillSql (s: string): string {
  const iso = (at: string) => `to_char((${at}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
  return `
INSERT INTO ${s}.payment_facets (model, id, version, gateway, status, currency, total_amount, created_at, updated_at, attention_at, provider_ids, facets)
SELECT 'Payment', id, 1, gateway, status, currency, amount, created, created + interval '2 minutes', attention, ARRAY[provider],
  jsonb_strip_nulls(jsonb_build_object('id', id, 'gatewayName', gateway, 'status', status, 'currencyCode', currency, 'totalAmount', amount,
    'createdAt', ${iso('created')}, 'updatedAt', ${iso("created + interval '2 minutes'")}, 'providerIds', jsonb_build_array(provider),
    'attentionAt', ${iso('attention')}, 'attentionReason', reason))
FROM (SELECT $1::int AS n, $2::timestamptz AS now, $3::int AS due, $4::int AS backoff) AS p,
  generate_series(1, $1::bigint) AS i,
  LATERAL (SELECT 'pay_' || lpad(i::text, 8, '0') AS id,
    CASE WHEN i % 3 = 0 THEN 'stripe' ELSE 'paypal_checkout' END AS gateway,
    CASE WHEN i % 4 = 0 THEN 'USD' ELSE 'EUR' END AS currency,
    500 + (i * 7919) % 50000 AS amount,
    date_trunc('milliseconds', p.now - interval '365 days' * (p.n - i) / p.n - interval '20 minutes') AS created,
    CASE WHEN i > p.n - p.backoff THEN 'backoff' WHEN i > p.n - p.backoff - p.due THEN 'due' ELSE 'settled' END AS kind) AS a,
  LATERAL (SELECT
    CASE WHEN kind = 'settled' THEN CASE WHEN i % 50 = 0 THEN 'refunded' WHEN i % 23 = 0 THEN 'canceled' WHEN i % 31 = 0 THEN 'failed' ELSE 'captured' END
      WHEN kind = 'due' OR i % 2 = 0 THEN 'pending' ELSE 'captured' END AS status,
    CASE WHEN kind = 'due' THEN p.now - interval '1 second' * (1 + (i * 37) % 172800)
      WHEN kind = 'backoff' THEN p.now + interval '1 second' * (1 + (i * 37) % 3600) END AS attention,
    CASE WHEN kind = 'settled' THEN NULL WHEN kind = 'due' OR i % 2 = 0 THEN 'pending' ELSE 'refund_pending' END AS reason,
    CASE WHEN i % 3 = 0 THEN 'pi_' ELSE 'ORDER-' END || i AS provider) AS b`
}

interface Timing { median: number, p99: number }

async function timed (run: () => Promise<unknown>): Promise<Timing> {
  await run()
  const times: number[] = []
  for (let i = 0; i < REPEAT; i++) {
    const start = performance.now()
    await run()
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  return { median: percentile(times, 50), p99: percentile(times, 99) }
}

/** The statements a call sends on the pool, caught as they go. */
async function sentBy (pool: pg.Pool, run: () => Promise<unknown>): Promise<Array<{ text: string, values: unknown[] }>> {
  const sent: Array<{ text: string, values: unknown[] }> = []
  const query = pool.query.bind(pool) as (...a: unknown[]) => Promise<unknown>
  pool.query = ((text: string, values: unknown[]) => {
    sent.push({ text, values })
    return query(text, values)
  }) as typeof pool.query
  try {
    await run()
  } finally {
    pool.query = query as typeof pool.query
  }
  return sent
}

interface PlanNode {
  'Node Type': string
  'Index Name'?: string
  'Actual Rows': number
  'Rows Removed by Filter'?: number
  'Shared Hit Blocks': number,
  'Shared Read Blocks': number
  Plans?: PlanNode[]
}

/** EXPLAIN (ANALYZE, BUFFERS) of each statement a call sends: its plan's nodes, the rows the top one gave and the buffers it touched. */
async function explain (pool: pg.Pool, run: () => Promise<unknown>): Promise<string> {
  const lines: string[] = []
  for (const { text, values } of await sentBy(pool, run)) {
    const { rows } = await pool.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode, 'Execution Time': number }> }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values)
    const [{ Plan: plan, 'Execution Time': ms }] = rows[0]?.['QUERY PLAN'] as [{ Plan: PlanNode, 'Execution Time': number }]
    const nodes: string[] = []
    const walk = (node: PlanNode) => {
      nodes.push(`${node['Node Type']}${node['Index Name'] === undefined ? '' : ` on ${node['Index Name']}`} (${node['Actual Rows']} rows${node['Rows Removed by Filter'] ? `, ${node['Rows Removed by Filter']} filtered out` : ''})`)
      for (const child of node.Plans ?? []) walk(child)
    }
    walk(plan)
    lines.push(`${nodes.join(' → ')}; buffers ${plan['Shared Hit Blocks'] + plan['Shared Read Blocks']} (hit ${plan['Shared Hit Blocks']}, read ${plan['Shared Read Blocks']}); ${ms.toFixed(2)} ms in the server`)
  }
  return lines.join('\n      ')
}

/** Commands Redis ran since the last reset, per call of the measured function and with their mean server microseconds (INFO and CONFIG left out). */
async function commandsSince (redis: Redis, calls: number): Promise<string> {
  const stats = await redis.info('commandstats')
  const parts: string[] = []
  for (const match of stats.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) {
    const [, name, count, usec] = match as unknown as [string, string, string, string]
    if (name === 'info' || name.startsWith('config')) continue
    parts.push(`${name} ${Number(count) / calls} per call, ${(Number(usec) / Number(count)).toFixed(1)} µs each`)
  }
  return parts.join('; ')
}

const ms = (timing: Timing) => `median ${timing.median.toFixed(2)} ms, p99 ${timing.p99.toFixed(2)} ms`

async function main (): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 })
  const schema = `sweepcost_${randomUUID().slice(0, 8)}`
  const keyPrefix = `sweepcost:${randomUUID().slice(0, 8)}:`
  const server = await startRedis()
  const redis = new Redis(server.url)
  const shared = server.url === (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')
  console.log(`now ${NOW.toISOString()}, ${DUE} due, ${BACKING_OFF} backing off, attentionDue(now, ${LIMIT}) and searches ${REPEAT} times each`)
  try {
    await migrate(pool, schema)
    const postgres = new PostgresStorage(pool, Payment, { schema })
    const onRedis = new RedisStorage(redis, Payment, { keyPrefix })
    for (const size of SIZES) {
      console.log(`\n${size.toLocaleString('en')} stored payments`)
      await pool.query(`TRUNCATE ${schema}.payment_facets`)
      if (shared) await dropKeys(redis, keyPrefix)
      else await redis.flushdb()
      let start = performance.now()
      await pool.query(fillSql(schema), [size, NOW.toISOString(), DUE, BACKING_OFF])
      await pool.query(`VACUUM ANALYZE ${schema}.payment_facets`)
      console.log(`  PostgreSQL filled in ${((performance.now() - start) / 1000).toFixed(1)} s`)
      start = performance.now()
      await copyToRedis(pool, schema, onRedis)
      console.log(`  Redis filled in ${((performance.now() - start) / 1000).toFixed(1)} s (indexPayment() per payment)`)
      const size2 = await pool.query<{ table: string, indexes: string }>(
        'SELECT pg_size_pretty(pg_table_size($1)) AS table, pg_size_pretty(pg_indexes_size($1)) AS indexes', [`${schema}.payment_facets`])
      console.log(`  sizes: PostgreSQL payment_facets ${size2.rows[0]?.table} + indexes ${size2.rows[0]?.indexes}; Redis ${/used_memory_human:(\S+)/.exec(await redis.info('memory'))?.[1]}${shared ? ' (shared server)' : ''}`)

      const calls: Array<[string, () => Promise<unknown>]> = [
        [`attentionDue(now, ${LIMIT})`, async () => {
          const due = await postgres.attentionDue(NOW, LIMIT)
          if (due.length !== LIMIT) throw new Error(`expected ${LIMIT} due, got ${due.length}`)
        }],
        ["searchPayments({ status: ['pending'], first: 25 })", async () => await postgres.searchPayments({ status: ['pending'], first: 25 })],
        ['searchPayments({ createdFrom, createdTo: a week 6 months back, first: 25 })', async () => await postgres.searchPayments(weekAgo())]
      ]
      const redisCalls: Array<() => Promise<unknown>> = [
        async () => {
          const due = await onRedis.attentionDue(NOW, LIMIT)
          if (due.length !== LIMIT) throw new Error(`expected ${LIMIT} due, got ${due.length}`)
        },
        async () => await onRedis.searchPayments({ status: ['pending'], first: 25 }),
        async () => await onRedis.searchPayments(weekAgo())
      ]
      for (const [index, [name, run]] of calls.entries()) {
        const onRedisRun = redisCalls[index] as () => Promise<unknown>
        console.log(`  ${name}`)
        console.log(`    PostgreSQL: ${ms(await timed(run))}`)
        console.log(`      ${await explain(pool, run)}`)
        await redis.config('RESETSTAT')
        const redisTiming = await timed(onRedisRun)
        console.log(`    Redis: ${ms(redisTiming)}`)
        console.log(`      ${shared ? '(shared server: counters include other clients) ' : ''}${await commandsSince(redis, REPEAT + 1)}`)
      }
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await pool.end()
    if (shared) await dropKeys(redis, keyPrefix)
    redis.disconnect()
    server.stop()
  }
}

/** A week's payments, six months back: the date-range search. */
function weekAgo (): { createdFrom: string, createdTo: string, first: number } {
  const from = NOW.getTime() - 183 * 86_400_000
  return { createdFrom: new Date(from).toISOString(), createdTo: new Date(from + 7 * 86_400_000).toISOString(), first: 25 }
}

/** Reads the facets PostgreSQL made, newest first by its index, and stores each through the Redis storage. */
async function copyToRedis (pool: pg.Pool, schema: string, storage: RedisStorage<Payment>): Promise<void> {
  let after: [string, string] = ['infinity', '']
  for (;;) {
    const { rows } = await pool.query<{ id: string, version: string, created_at: string, facets: PaymentFacets }>(
      `SELECT id, version, created_at::text, facets FROM ${schema}.payment_facets
        WHERE model = 'Payment' AND (created_at, id) < ($1::timestamptz, $2) ORDER BY created_at DESC, id DESC LIMIT 10000`, after)
    if (rows.length === 0) return
    await Promise.all(rows.map((row) => storage.indexPayment(row.id, Number(row.version), row.facets)))
    const last = rows.at(-1) as { id: string, created_at: string }
    after = [last.created_at, last.id]
  }
}

/** On a shared Redis, only this run's keys go. */
async function dropKeys (redis: Redis, keyPrefix: string): Promise<void> {
  let cursor = '0'
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 10_000)
    if (keys.length > 0) await redis.unlink(...keys)
    cursor = next
  } while (cursor !== '0')
}

await main()
