import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { Redis } from 'ioredis'
import t from 'tap'
import { request } from 'undici'
import { buildDemoShop } from '../app.ts'
import { Payment } from '../plugins/core/index.ts'
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
  t.match(page.body, '<select id="gateway" name="gateway"><option>offline</option>')
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

t.test('bad checkout input gets the form back with a message, never a payment', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example' })
  t.teardown(() => app.close())
  const cases: Array<[string, string]> = [
    ['amount=abc&currency=EUR&gateway=offline', 'Please enter an amount'],
    ['amount=12.5&currency=JPY&gateway=offline', '12.5 is not a valid amount in JPY'],
    ['amount=1&currency=XQQ&gateway=offline', 'not a valid amount in XQQ'],
    ['amount=1&currency=EUR&gateway=bitcoin', 'Unknown payment method'],
    ['amount=1', 'Please enter an amount']
  ]
  for (const [payload, message] of cases) {
    const response = await app.inject({ method: 'POST', url: '/checkout', payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    t.equal(response.statusCode, 400, payload)
    t.match(response.body, message)
    t.match(response.body, 'role="alert"')
  }
  t.same(await app.paywire.getStorage(Payment).findBy({}), [], 'nothing stored')
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

t.test('the demo\'s paypal gateway runs the whole redirect flow against the in-process simulator, webhooks included', async (t) => {
  const app = await buildDemoShop()
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const checkout = await request(`${address}/checkout`, { method: 'POST', body: 'amount=7.50&currency=EUR&gateway=paypal', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  await checkout.body.dump()
  const toPaypal = await request(String(checkout.headers.location))
  await toPaypal.body.dump()
  t.equal(toPaypal.statusCode, 302)
  const approvalUrl = new URL(String(toPaypal.headers.location))
  const page = await (await request(approvalUrl)).body.text()
  t.match(page, '7.50')
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] as string
  const approved = await request(new URL('/cgi-bin/webscr', approvalUrl), {
    method: 'POST', body: `cmd=_express-checkout&token=${token}&decision=approve`, headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  await approved.body.dump()
  t.equal(approved.statusCode, 302)
  t.match(String(approved.headers.location), `${address}/payment/capture/`)
  const back = await request(String(approved.headers.location))
  await back.body.dump()
  t.equal(back.statusCode, 302)
  const done = await request(String(back.headers.location))
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 750, currencyCode: 'EUR' } })

  const webhooks = app.paypalSimulator?.simulator.webhooks
  await webhooks?.waitForIdle()
  const deliveries = webhooks?.deliveries() ?? []
  t.ok(deliveries.length > 0, 'the simulator delivered webhooks to the shop')
  t.ok(deliveries.every((delivery) => delivery.attempts.at(-1)?.statusCode === 204), 'the shop verified and accepted each one')
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

t.test('the demo offers PayPal (Orders v2) beside PayPal (v1): the paypal-checkout gateway pays through the simulator', async (t) => {
  const app = await buildDemoShop()
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  t.match(await (await request(`${address}/`)).body.text(), 'paypal-checkout')
  const checkout = await request(`${address}/checkout`, { method: 'POST', body: 'amount=7.50&currency=EUR&gateway=paypal-checkout', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  await checkout.body.dump()
  const toPaypal = await request(String(checkout.headers.location))
  await toPaypal.body.dump()
  const payerAction = new URL(String(toPaypal.headers.location))
  t.equal(payerAction.pathname, '/checkoutnow')
  const token = payerAction.searchParams.get('token') as string
  const approved = await request(new URL('/checkoutnow', payerAction), {
    method: 'POST', body: `token=${token}&decision=approve`, headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  await approved.body.dump()
  const back = await request(String(approved.headers.location))
  await back.body.dump()
  const done = await request(String(back.headers.location))
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 750, currencyCode: 'EUR' } })
  const webhooks = app.paypalSimulator?.simulator.webhooks
  await webhooks?.waitForIdle()
  const deliveries = webhooks?.deliveries().filter((delivery) => delivery.url.endsWith('/paypal-checkout')) ?? []
  t.same(deliveries.map((delivery) => delivery.eventType).sort(), ['CHECKOUT.ORDER.APPROVED', 'PAYMENT.CAPTURE.COMPLETED'])
  t.ok(deliveries.every((delivery) => delivery.attempts.at(-1)?.statusCode === 204), 'the shop verified and accepted each one')
})
