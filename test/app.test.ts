import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { Redis } from 'ioredis'
import t from 'tap'
import { request } from 'undici'
import { buildDemoShop } from '../app.ts'
import { envWith, spawnUncovered } from './helpers/child-process.ts'
import { DATABASE_URL, testPostgres } from './plugins/postgres/fixtures.ts'

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

function pathOf (url: string | string[] | undefined): string {
  const parsed = new URL(String(url))
  return parsed.pathname + parsed.search
}

t.test('the checkout page lists the gateways and runs the preparation procedure', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example' })
  t.teardown(() => app.close())
  const page = await app.inject({ url: '/' })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<select id="gateway" name="gateway"><option value="offline">Pay by bank transfer (offline)</option>', 'each gateway in the buyer\'s words')
  t.match(page.body, '<label for="amount">Amount</label>')

  const checkout = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=12,50&currency=EUR&gateway=offline&description=Mug', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(checkout.statusCode, 302)
  t.match(checkout.headers.location, /^https:\/\/shop\.example\/payment\/capture\/[\w-]{51}$/)
  const capture = await app.inject({ url: pathOf(checkout.headers.location) })
  t.equal(capture.statusCode, 302)
  const done = await app.inject({ url: pathOf(capture.headers.location), headers: { accept: 'text/html' } })
  t.match(done.body, '<span class="status" data-status="captured">Paid</span>')
  t.match(done.body, '€12.50')
})

t.test('the shop ships on payment.captured: its event handler logs "order DEMO-… paid", once', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const stream = { write: (line: string) => { lines.push(JSON.parse(line)) } }
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  const checkout = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=9.99&currency=EUR&gateway=offline', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  const capture = await app.inject({ url: pathOf(checkout.headers.location) })
  t.equal(capture.statusCode, 302)
  await app.paywire.events.drain()
  const paid = lines.filter((line) => /paid$/.test(String(line.msg)))
  t.match(paid, [{ level: 30, msg: /^order DEMO-[0-9A-Z]+-[0-9A-F]{10} paid$/, order: /^DEMO-/, event: /^[0-9a-f-]{36}$/ }])
  t.equal(paid.length, 1)
})

t.test('REDIS_URL switches tokens and payments to Redis', async (t) => {
  const prefix = `test:app:${randomUUID()}:`
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', redisUrl: REDIS_URL, redisKeyPrefix: prefix })
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    await app.close()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.unlink(keys)
    await redis.quit()
  })
  const checkout = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=500&currency=JPY&gateway=offline', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(checkout.statusCode, 302)
  t.equal((await redis.keys(`${prefix}*:token:*`)).length, 2, 'the capture and done tokens are in Redis')
  const capture = await app.inject({ url: pathOf(checkout.headers.location) })
  const done = await app.inject({ url: pathOf(capture.headers.location) })
  t.equal(done.json().status, 'captured')
  t.equal(done.json().payment.totalAmount, 500)
  const records = await redis.keys(`${prefix}*:model:Payment:*`)
  t.equal(records.length, 1)
  t.match(JSON.parse((await redis.get(records[0] as string) as string).replace(/^\d+ /, '')), { totalAmount: 500, currencyCode: 'JPY', details: { status: 'captured' } })
})

t.test('DATABASE_URL keeps payments in PostgreSQL; with REDIS_URL too, tokens stay in Redis', async (t) => {
  const { pool, schema } = await testPostgres(t, 'demo')
  const prefix = `test:demo-pg:${process.pid}:`
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', databaseUrl: DATABASE_URL, databaseSchema: schema, redisUrl: REDIS_URL, redisKeyPrefix: prefix, paypal: false })
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    await app.close()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.unlink(keys)
    await redis.quit()
  })
  const checkout = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=12.50&currency=EUR&gateway=offline', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(checkout.statusCode, 302)
  t.equal((await redis.keys(`${prefix}*:token:*`)).length, 2, 'the tokens are in Redis')
  const capture = await app.inject({ url: new URL(checkout.headers.location as string).pathname })
  const done = await app.inject({ url: new URL(capture.headers.location as string).pathname, headers: { accept: 'application/json' } })
  t.match(done.json(), { status: 'captured', payment: { totalAmount: 1250, currencyCode: 'EUR' } })
  const { rows } = await pool.query(`SELECT amount, currency, status FROM "${schema}".records WHERE model = 'Payment'`)
  t.same(rows, [{ amount: '1250', currency: 'EUR', status: 'captured' }], 'the payment is in PostgreSQL')
  t.same(await redis.keys(`${prefix}*:model:*`), [], 'and not in Redis')
})

t.test('npm start serves the shop on embedded defaults and completes a payment', async (t) => {
  // Empty variables count as unset: an empty REDIS_URL (a blank line in a .env file) is no Redis.
  const env = envWith({ PORT: '0', LOG_LEVEL: 'info', REDIS_URL: '', DATABASE_URL: '', PAYPAL_CLIENT_SECRET: '' }, ['BASE_URL'])
  const child = spawnUncovered('npm', ['start', '--silent'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { if (child.exitCode === null) process.kill(-(child.pid as number), 'SIGKILL') })
  let output = ''
  const address = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Demo shop: (http:\/\/[\d.:]+)\/ \(storage: memory, PayPal: simulator\)/.exec(output)
      if (match !== null) resolve(match[1] as string)
    })
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)))
  })
  const page = await request(`${address}/`)
  t.equal(page.statusCode, 200)
  t.match(await page.body.text(), 'Paywire demo shop')
  const checkout = await request(`${address}/checkout`, { method: 'POST', body: 'amount=3.20&currency=USD&gateway=offline', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  await checkout.body.dump()
  t.equal(checkout.statusCode, 302)
  const capture = await request(String(checkout.headers.location))
  await capture.body.dump()
  const done = await request(String(capture.headers.location))
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 320, currencyCode: 'USD' } })

  // npm itself dies of the signal; the shop must close cleanly.
  process.kill(-(child.pid as number), 'SIGTERM')
  await once(child, 'close')
  t.match(output, 'SIGTERM received, closing')
  t.notMatch(output, /"level":50/, 'no error was logged')
})
