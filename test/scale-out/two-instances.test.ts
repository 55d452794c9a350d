/*
 * Several instances, one truth: two Paywire processes sharing one PostgreSQL (payments)
 * and one Redis Cluster (tokens, claims). Captures spread over both reach the provider
 * once; a notification on one instance during a capture on the other is kept, not lost.
 */
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import t from 'tap'
import { request } from 'undici'
import { envWith, spawnUncovered } from '../helpers/child-process.ts'
import { ownCluster } from '../helpers/redis-cluster.ts'
import { testPostgres, DATABASE_URL } from '../plugins/postgres/fixtures.ts'

const cluster = await ownCluster(t)
const { pool, schema } = await testPostgres(t, 'two-instances')

/** The payment provider: counts capture executions per order, and holds them while `held` is set. */
const executions = new Map<string, number>()
let held: Promise<void> | undefined
let arrived: (() => void) | undefined
const provider = createServer((req: IncomingMessage, res: ServerResponse) => {
  let body = ''
  req.on('data', (chunk: Buffer) => { body += chunk.toString() })
  req.on('end', () => {
    executions.set(body, (executions.get(body) ?? 0) + 1)
    arrived?.()
    const answer = held ?? Promise.resolve()
    answer.then(() => res.end('ok'), () => {})
  })
})
provider.listen(0, '127.0.0.1')
await once(provider, 'listening')
t.teardown(() => new Promise<void>((resolve) => provider.close(() => resolve())))

/** Holds the provider's answers until the returned release() is called; `entered` resolves once a capture reached it. */
function hold (): { entered: Promise<void>, release: () => void } {
  let release = () => {}
  held = new Promise((resolve) => { release = resolve })
  const entered = new Promise<void>((resolve) => { arrived = resolve })
  return { entered, release: () => { held = undefined; arrived = undefined; release() } }
}

// One key prefix for both: they share the tokens and the claims.
const keyPrefix = `scale:${randomUUID()}:`

async function startInstance (): Promise<string> {
  const child = spawnUncovered(process.execPath, ['--import', 'tsx', 'test/scale-out/fixtures/instance.ts'], {
    env: envWith({
      DATABASE_URL,
      PG_SCHEMA: schema,
      REDIS_CLUSTER: JSON.stringify(cluster.nodes),
      KEY_PREFIX: keyPrefix,
      PROVIDER_URL: `http://127.0.0.1:${(provider.address() as { port: number }).port}`
    }),
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(async () => {
    if (child.exitCode !== null) return
    const exited = once(child, 'exit')
    child.kill('SIGTERM')
    await exited
  })
  const [line] = await once(child.stdout, 'data') as [Buffer]
  return `http://127.0.0.1:${(JSON.parse(line.toString()) as { port: number }).port}`
}

const instances = await Promise.all([startInstance(), startInstance()])

/** Polls a condition (no fixed sleep). */
async function until (check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5))
}

async function get (origin: string, path: string): Promise<{ statusCode: number, location?: string, code?: string }> {
  const response = await request(`${origin}${path}`, { headers: { accept: 'application/json' } })
  const text = await response.body.text()
  const location = response.headers.location as string | undefined
  return { statusCode: response.statusCode, location, code: text.startsWith('{') ? (JSON.parse(text) as { code?: string }).code : undefined }
}

async function prepare (origin: string): Promise<{ id: string, capture: string, notify: string, order: string }> {
  const response = await request(`${origin}/prepare`, { method: 'POST' })
  return await response.body.json() as { id: string, capture: string, notify: string, order: string }
}

async function stored (id: string): Promise<Record<string, any>> {
  const { rows } = await pool.query(`SELECT record FROM "${schema}".records WHERE model = 'Payment' AND id = $1`, [id])
  return rows[0].record
}

t.test('50 concurrent captures of one token spread over both instances: one provider execution', async (t) => {
  const payment = await prepare(instances[0] as string)
  const provider = hold()
  let answered = 0
  const answers = Array.from({ length: 50 }, async (_, i) => {
    const answer = await get(instances[i % 2] as string, payment.capture)
    answered++
    return answer
  })
  await provider.entered
  // While one capture is held at the provider, every other request is answered (the payment
  // is claimed), unless a second one reached the provider too.
  await until(() => answered === 49 || (executions.get(payment.order) ?? 0) > 1)
  provider.release()
  const results = await Promise.all(answers)
  t.equal(executions.get(payment.order), 1, 'the provider executed the capture once')
  const captured = results.filter((result) => result.statusCode === 302)
  t.equal(captured.length, 1, 'one request captured')
  t.ok(results.every((result) => result.statusCode === 302 || (result.statusCode === 409 && result.code === 'PAYWIRE_ERR_PAYMENT_BUSY') || result.statusCode === 303),
    `the others were told the payment was busy or already paid: ${JSON.stringify([...new Set(results.map((result) => result.statusCode))])}`)
  t.equal((await stored(payment.id)).details.status, 'captured')
  for (const origin of instances) t.equal((await get(origin, payment.capture)).statusCode, 303, 'the used link leads to the result on either instance')
})

t.test('a notification on instance B during a capture on instance A: both facts are kept', async (t) => {
  const payment = await prepare(instances[1] as string)
  const provider = hold()
  const capture = get(instances[0] as string, payment.capture)
  await provider.entered
  const early = await get(instances[1] as string, payment.notify)
  t.same([early.statusCode, early.code], [409, 'PAYWIRE_ERR_PAYMENT_BUSY'], 'B is told to retry while A holds the payment')
  provider.release()
  t.equal((await capture).statusCode, 302)
  const retried = await get(instances[1] as string, payment.notify)
  t.ok(retried.statusCode < 300, `the retried notification is applied (${retried.statusCode})`)
  const record = await stored(payment.id)
  t.equal(record.details.status, 'captured', 'A\'s capture is kept')
  t.equal(record.details.facts.length, 1, 'B\'s notification is kept')
  t.equal(executions.get(payment.order), 1)
})
