/*
 * What preparing the hot statements buys (issue 23): the buyer path's reads and the
 * dispatcher's due() sent REPEAT times on one connection, as plain extended-protocol queries
 * and as named prepared statements, alternately in rounds. Reported per statement: wall time
 * and the CPU time of the server process serving the connection (/proc/<pid>/stat, so other
 * clients of the server are not counted; needs the server on this machine) and of this
 * process (the client's work: pg parses and builds each message either way).
 *   node --conditions=paywire-source --import tsx scripts/bench/prepared-cost.ts [--repeat 5000]
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { Identity, Payment, Token } from '../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, migrate } from '../../plugins/postgres/index.ts'

const { values: args } = parseArgs({ options: { repeat: { type: 'string', default: '5000' } } })
const REPEAT = Number(args.repeat)
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `bench_prep_${randomUUID().slice(0, 8)}`
const s = `"${schema}"`
const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 })
await migrate(admin, schema)
const client = new pg.Client({ connectionString: databaseUrl })
await client.connect()
const backendPid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid
const ticks = () => { const f = readFileSync(`/proc/${backendPid}/stat`, 'utf8').split(') ')[1]!.split(' '); return Number(f[11]) + Number(f[12]) }
const TICK_MS = 10

try {
  // A payment and its token, made through the storages as the prepare does.
  const backend = new PostgresStorageBackend(admin, { schema })
  const payments = backend.createStorage(Payment)
  const payment = Object.assign(payments.create(), { number: 'PREP-1', totalAmount: 100, currencyCode: 'EUR' })
  await payments.update(payment)
  const token = new Token()
  token.gatewayName = 'offline'
  token.targetUrl = 'https://shop.example/payment/done/x'
  token.details = new Identity(payment.id as string, 'Payment')
  await backend.createTokenStorage().save([token])

  const statements: Array<[string, string, unknown[]]> = [
    ['record read', `SELECT record, version FROM ${s}.records WHERE model = $1 AND md5(id) = md5($2) AND id = $2`, ['Payment', payment.id]],
    ['token find', `SELECT token FROM ${s}.tokens WHERE md5(hash) = md5($1) AND hash = $1 AND NOT used AND (expires_at IS NULL OR expires_at > clock_timestamp())`, [token.hash]],
    ['outbox due()', `SELECT partition FROM ${s}.outbox_due WHERE due_ms <= $1 ORDER BY due_ms LIMIT $2`, [Date.now(), 64]]
  ]
  for (const [label, text, values] of statements) {
    const totals = { plain: { ms: 0, server: 0, client: 0 }, prepared: { ms: 0, server: 0, client: 0 } }
    for (let round = 0; round < 10; round++) {
      for (const kind of ['plain', 'prepared'] as const) {
        const config = kind === 'plain' ? { text, values } : { name: `prep_${label.replace(/\W/g, '_')}`, text, values }
        const [t0, c0, s0] = [performance.now(), process.cpuUsage(), ticks()]
        for (let n = 0; n < REPEAT / 10; n++) await client.query(config)
        const c1 = process.cpuUsage(c0)
        totals[kind].ms += performance.now() - t0
        totals[kind].server += (ticks() - s0) * TICK_MS
        totals[kind].client += (c1.user + c1.system) / 1000
      }
    }
    const per = (ms: number) => `${(ms * 1000 / REPEAT).toFixed(1)} µs`
    for (const kind of ['plain', 'prepared'] as const) {
      console.log(`${label}, ${kind}: wall ${per(totals[kind].ms)}, server CPU ${per(totals[kind].server)}, client CPU ${per(totals[kind].client)} per statement`)
    }
  }
} finally {
  await client.end()
  await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`)
  await admin.end()
}
