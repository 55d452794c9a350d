/*
 * Lists the statements one buyer flow sends to PostgreSQL, step by step:
 *   node --conditions=paywire-source --import tsx scripts/bench/pg-trace.ts [--flows 3]
 * The demo shop on a fresh schema (dropped after); a few warm-up flows, then the last flow's
 * statements per step (prepare, capture, done) and what its event's delivery sent (the
 * outbox's statements, whichever step they ran beside).
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { buildDemoShop } from '../../app.ts'
import { migrate } from '../../plugins/postgres/index.ts'

const { values } = parseArgs({ options: { flows: { type: 'string', default: '3' } } })
const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const schema = `bench_trace_${randomUUID().slice(0, 8)}`
const admin = new pg.Pool({ connectionString: databaseUrl, max: 1 })
await migrate(admin, schema)

let log: string[] | undefined
// The dispatcher delivers while the next step runs: its statements (the outbox's) are listed apart.
let delivery: string[] = []
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown
pg.Client.prototype.query = function traced (this: pg.Client, ...args: unknown[]) {
  const first = args[0]
  const config = typeof first === 'string' ? { text: first } : first as { text?: string, name?: string }
  const text = (config.text ?? '').replace(/\s+/g, ' ').trim()
  const line = `${config.name === undefined ? '' : '(prepared) '}${text.length > 150 ? `${text.slice(0, 150)}…` : text}`
  if (/\.outbox(_due|_leases)?\b/.test(text)) delivery.push(line)
  else log?.push(line)
  return query.apply(this, args)
} as typeof pg.Client.prototype.query

const app = await buildDemoShop({ databaseUrl, databaseSchema: schema, paypal: false, stripe: false, baseUrl: 'http://localhost', logger: process.env.TRACE_LOG === '1', rateLimits: false })
let delivered = 0
app.paywire.onAny(() => { delivered++ })
await app.ready()
const path = (location: unknown) => { const url = new URL(String(location), 'http://x'); return url.pathname + url.search }
try {
  for (let n = 1; n <= Number(values.flows); n++) {
    const last = n === Number(values.flows)
    const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      log = []
      const answer = await run()
      if (last) console.log(`${name}: ${log.length} statements\n${log.map((line) => `  ${line}`).join('\n')}`)
      log = undefined
      return answer
    }
    const before = delivered
    delivery = []
    const prepared = await step('prepare', async () => await app.inject({ method: 'POST', url: '/checkout', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'amount=12.34&currency=EUR&gateway=offline' }))
    const captured = await step('capture', async () => await app.inject({ method: 'GET', url: path(prepared.headers.location) }))
    const done = await step('done', async () => await app.inject({ method: 'GET', url: path(captured.headers.location), headers: { accept: 'application/json' } }))
    if (prepared.statusCode !== 302 || captured.statusCode !== 302 || (done.json() as { status?: string }).status !== 'captured') throw new Error(`flow ${n} failed: ${done.body}`)
    const deliveredSoFar = () => delivered
    while (deliveredSoFar() === before) await sleep(5)
    // The settle follows the handler.
    await sleep(300)
    if (last) console.log(`delivery: ${delivery.length} statements\n${delivery.map((line) => `  ${line}`).join('\n')}`)
  }
} finally {
  await app.close()
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await admin.end()
}
