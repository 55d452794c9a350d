/*
 * The demo's rate limits (demo/rate-limits.ts): per client address and kind of route, answered
 * with a sentence a person understands.
 */
import t from 'tap'
import { buildDemoShop } from '../../app.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

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

t.test('a limited browser reads what to do in a sentence, an API client gets a coded answer', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false, rateLimits: { checkout: 1, payment: 1 } })
  t.teardown(() => app.close())
  const checkout = (headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, ...headers } })
  const first = await checkout()
  const page = await checkout({ accept: 'text/html' })
  t.equal(page.statusCode, 429)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.body, '<h1>Too many attempts</h1>')
  t.match(page.body, '<p class="message">Too many attempts; please wait a minute and try again.</p>')
  t.match(page.body, '<a class="shop" href="/">Back to the shop</a>')
  t.notMatch(page.body, /Rate limit exceeded|retry in \d+/, 'no countdown in a library\'s words')
  t.same((await checkout({ accept: 'application/json' })).json(), { statusCode: 429, code: 'DEMO_ERR_RATE_LIMITED', message: 'Too many attempts; please wait a minute and try again.' })

  const capture = new URL(String(first.headers.location)).pathname
  await app.inject({ url: capture })
  const buyerPage = await app.inject({ url: capture, headers: { accept: 'text/html' } })
  t.equal(buyerPage.statusCode, 429)
  t.match(buyerPage.body, 'Too many attempts; please wait a minute and try again.', 'Paywire\'s buyer pages say the same')
})
