/*
 * The demo shop as users copy it: unique order numbers, a form that keeps the buyer's input,
 * no internal messages on its pages, no cross-site checkouts, rate limits, and clear
 * messages when npm start cannot start.
 */
import { createServer } from 'node:net'
import { once } from 'node:events'
import t from 'tap'
import { DemoConfigError, buildDemoShop, readEnvironment, startupMessage } from '../app.ts'
import { Payment } from '../plugins/core/index.ts'
import { envWith, spawnUncovered } from './helpers/child-process.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('200 concurrent checkouts get 200 different order numbers', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false, rateLimits: false })
  t.teardown(() => app.close())
  await Promise.all(Array.from({ length: 200 }, () => app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: FORM })))
  const numbers = (await app.paywire.getStorage(Payment).findBy({})).map((payment) => payment.number)
  t.equal(numbers.length, 200)
  t.equal(new Set(numbers).size, 200)
  t.ok(numbers.every((number) => /^DEMO-[0-9A-Z]+-[0-9A-F]{10}$/.test(number)))
})

t.test('after an error, the form keeps what the buyer typed', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=12.5&currency=JPY&gateway=offline&description=Tea%20"set"', headers: FORM })
  t.equal(page.statusCode, 400)
  t.match(page.body, 'value="12.5"', 'not reset to 19.99')
  t.match(page.body, '<option selected>JPY</option>')
  t.match(page.body, '<option selected>offline</option>')
  t.match(page.body, 'value="Tea &quot;set&quot;"', 'escaped')
})

t.test('the shop\'s own error answers never carry internal messages', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  app.get('/boom', async () => { throw new Error('ERR Error running script (call to f_1234): @user_script:3: OOM') })
  const storage = app.paywire.getStorage(Payment)
  storage.update = async () => { throw new Error('WRONGPASS invalid username-password pair; script: local x = KEYS[1]') }
  const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, accept: 'text/html' } })
  t.equal(page.statusCode, 500)
  t.match(page.body, 'Something went wrong on our side; nothing was charged.')
  t.notMatch(page.body, /WRONGPASS|KEYS\[/)
  t.match(page.body, 'value="1"', 'with the form as the buyer filled it, to try again')
  const json = await app.inject({ url: '/boom', headers: { accept: 'application/json' } })
  t.same(json.json(), { statusCode: 500, code: 'DEMO_ERR_INTERNAL', message: 'Something went wrong on our side; nothing was charged. Please try again.' })
  const html = await app.inject({ url: '/boom', headers: { accept: 'text/html' } })
  t.notMatch(html.body, 'user_script')
  const notFound = await app.inject({ url: '/nowhere', headers: { accept: 'application/json' } })
  t.equal(notFound.statusCode, 404)
})

t.test('another site cannot post the checkout form', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]) {
    const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, ...headers } })
    t.equal(page.statusCode, 403, JSON.stringify(headers))
    t.match(page.body, 'This form can only be sent from the shop&#39;s own page.')
  }
  t.same(await app.paywire.getStorage(Payment).findBy({}), [], 'no payment was made')
  const own = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' } })
  t.equal(own.statusCode, 302, 'the shop\'s own page')
  const noBrowser = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: FORM })
  t.equal(noBrowser.statusCode, 302, 'clients that send no Origin (curl) are not browsers: no cookie to ride on')
})

t.test('rate limits: payment creation, the token routes and the webhook route, each per client address', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', rateLimits: { checkout: 2, payment: 3, webhook: 2 } })
  t.teardown(() => app.close())
  const checkout = () => app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: FORM })
  const first = await checkout()
  t.equal(first.statusCode, 302)
  t.equal((await checkout()).statusCode, 302)
  const limited = await checkout()
  t.equal(limited.statusCode, 429)
  t.equal(limited.headers['retry-after'], '60')
  const graphql = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ gateways { name } }' } })
  t.equal(graphql.statusCode, 429, 'GraphQL shares the checkout budget')
  const capturePath = new URL(String(first.headers.location)).pathname
  const answers = []
  for (let visit = 0; visit < 4; visit++) answers.push((await app.inject({ url: capturePath })).statusCode)
  t.same(answers, [302, 303, 303, 429], 'the token routes have their own budget')
  const page = await app.inject({ url: `/payment/done/${'a'.repeat(43)}`, headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 429)
  t.match(page.headers['content-type'], /^text\/html/, 'the buyer gets a page')
  const hooks = []
  for (let post = 0; post < 3; post++) hooks.push((await app.inject({ method: 'POST', url: '/payment/notify/unsafe/paypal', payload: {} })).statusCode)
  t.same(hooks, [400, 400, 429], 'webhooks too')
  t.equal((await app.inject({ url: '/' })).statusCode, 200, 'the checkout page is not starved by the others')
})

t.test('npm start explains what to change when it cannot start', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT=abc is not a port number/],
    [{ PORT: '70000' }, /^PORT=70000 is not a port number/],
    [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL=verbose is not a log level: use one of fatal, error/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL must start with redis:\/\/ or rediss:\/\/ .*not http:/],
    [{ PAYPAL_CLIENT_ID: 'id' }, /^PAYPAL_CLIENT_ID is set without PAYPAL_CLIENT_SECRET/],
    [{ PAYPAL_CLIENT_SECRET: 'canary-secret' }, /^PAYPAL_CLIENT_SECRET is set without PAYPAL_CLIENT_ID/]
  ]
  for (const [variables, message] of cases) {
    process.env = envWith(variables, ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET'].filter((name) => !(name in variables)))
    const error = (() => { try { readEnvironment(); return null } catch (error) { return error } })()
    t.ok(error instanceof DemoConfigError, JSON.stringify(variables))
    t.match(startupMessage(error), message)
    t.notMatch(startupMessage(error), 'canary-secret')
  }
  t.match(startupMessage(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), { port: 3000, host: '127.0.0.1' } as never), 'Port 3000 on 127.0.0.1 is in use')
  t.match(startupMessage(new Error('redis://:pw@x failed')), 'redis://:***@x')

  const blocker = createServer().listen(0, '127.0.0.1')
  await once(blocker, 'listening')
  t.teardown(() => blocker.close())
  const port = String((blocker.address() as { port: number }).port)
  const child = spawnUncovered('npm', ['start', '--silent'], { env: envWith({ PORT: port, REDIS_URL: '', DATABASE_URL: '', PAYPAL_CLIENT_ID: '', PAYPAL_CLIENT_SECRET: '' }), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit')
  t.equal(code, 1)
  t.match(stderr, `Port ${port} on 127.0.0.1 is in use by another program`)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})
