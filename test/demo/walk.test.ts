/*
 * A walk through every path of the demo, as a browser would, with the shop's log captured at
 * info: what the log says is only what happened, one line per request and one per paid (or
 * unpaid) order, and nothing at warn or above on any of these paths.
 */
import t from 'tap'
import { request } from 'undici'
import { buildDemoShop } from '../../app.ts'
import { captureLog } from '../helpers/log-capture.ts'

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
const FORM = { ...BROWSER, 'content-type': 'application/x-www-form-urlencoded' }

const log = captureLog()
const app = await buildDemoShop({ logger: { level: 'info', stream: log.stream }, rateLimits: { page: 2 } })
t.teardown(() => app.close())
const served: string[] = []
app.addHook('onResponse', async (request) => { served.push(request.id) })
const origin = await app.listen({ port: 0, host: '127.0.0.1' })
const simulator = app.paypalSimulator?.simulator

interface Answer { statusCode: number, location: string, type: string, body: string }

async function visit (url: string | URL, init: { method?: 'GET' | 'POST', body?: string, headers?: Record<string, string> } = {}): Promise<Answer> {
  const response = await request(url, { headers: BROWSER, ...init })
  return { statusCode: response.statusCode, location: String(response.headers.location ?? ''), type: String(response.headers['content-type']), body: await response.body.text() }
}

/** Checkout, then the capture route, as the buyer's browser follows the redirects; ends on the provider's page or the done page. */
async function pay (amount: string, gateway: string): Promise<Answer> {
  const checkout = await visit(`${origin}/checkout`, { method: 'POST', body: `amount=${amount}&currency=EUR&gateway=${gateway}`, headers: FORM })
  t.equal(checkout.statusCode, 302, `${gateway}: checkout redirects to the capture route`)
  return await visit(checkout.location)
}

/** The buyer's choice on PayPal's page (v1's approval page or v2's payer-action page), then back to the shop's done page. */
async function decideOnPaypal (toPaypal: Answer, decision: 'approve' | 'decline' | 'cancel'): Promise<Answer> {
  const page = new URL(toPaypal.location)
  const v1 = page.pathname === '/cgi-bin/webscr'
  const token = v1 ? /name="token" value="([^"]+)"/.exec((await visit(page)).body)?.[1] : page.searchParams.get('token')
  const decided = await visit(new URL(page.pathname, page), {
    method: 'POST', body: `${v1 ? 'cmd=_express-checkout&' : ''}token=${token ?? ''}&decision=${decision}`, headers: FORM
  })
  const back = await visit(decided.location)
  t.equal(back.statusCode, 302, `${decision}: the return leads to the done page`)
  return await visit(back.location)
}

t.test('every path answers a browser with a page', async (t) => {
  const home = await visit(`${origin}/`)
  t.equal(home.statusCode, 200)
  t.match(home.body, '<option value="paypal-checkout">PayPal Checkout</option>', 'gateways in the buyer\'s words')

  const offline = await pay('12.50', 'offline')
  const offlineDone = await visit(offline.location)
  t.match(offlineDone.body, '<span class="status" data-status="captured">Paid</span>', 'offline: paid')

  t.match((await decideOnPaypal(await pay('7.50', 'paypal'), 'approve')).body, '<h1>Thank you</h1>', 'PayPal v1: approved')
  t.match((await decideOnPaypal(await pay('3.20', 'paypal'), 'decline')).body, '<h1>Payment failed</h1>', 'PayPal v1: declined')
  t.match((await decideOnPaypal(await pay('4.10', 'paypal'), 'cancel')).body, '<h1>Payment canceled</h1>', 'PayPal v1: canceled')
  t.match((await decideOnPaypal(await pay('9.90', 'paypal-checkout'), 'approve')).body, 'data-status="captured">Paid</span>', 'PayPal v2: approved')

  const unknown = await visit(`${origin}/nowhere`)
  t.equal(unknown.statusCode, 404)
  t.match(unknown.body, '<h1>Page not found</h1>')
  const form = await visit(`${origin}/checkout`)
  t.equal(form.statusCode, 200)
  t.match(form.body, '<form method="post" action="/checkout">', 'GET /checkout is the form')
  const zero = await visit(`${origin}/checkout`, { method: 'POST', body: 'amount=0&currency=EUR&gateway=offline', headers: FORM })
  t.equal(zero.statusCode, 400)
  t.match(zero.body, 'Please enter an amount of at least 0.01 EUR.')
  const limited = await visit(`${origin}/`)
  t.equal(limited.statusCode, 429, 'a third page within the minute (the limit is 2 here; a wrong address does not count)')
  t.match(limited.body, 'Too many attempts; please wait a minute and try again.')

  for (const answer of [home, offlineDone, unknown, form, zero, limited]) t.match(answer.type, /^text\/html/, 'HTML, never JSON')
})

t.test('the log at info says what happened: one line per request, one per order, nothing at warn or above', async (t) => {
  await simulator?.webhooks.waitForIdle()
  await app.paywire.events.drain()
  const records = log.records()
  t.same(records.filter((record) => Number(record.level) >= 40), [], 'no warn, error or fatal line')

  const byRequest = new Map<unknown, string[]>()
  for (const record of records.filter((record) => record.reqId !== undefined)) byRequest.set(record.reqId, [...byRequest.get(record.reqId) ?? [], String(record.msg)])
  t.same([...byRequest.keys()].sort(), [...served].sort(), 'a line for every request the shop answered')
  t.same([...byRequest.values()].filter((lines) => lines.length !== 1), [], 'and only one')

  const others = records.filter((record) => record.reqId === undefined).map((record) => String(record.msg))
  t.match(others, [/^Server listening at /])
  const orders = others.slice(1).map((message) => message.replace(/DEMO-[0-9A-Z]+-[0-9A-F]{10}/, 'DEMO-…')).sort()
  t.same(orders, ['order DEMO-… not paid: payment canceled', 'order DEMO-… not paid: payment failed', 'order DEMO-… paid', 'order DEMO-… paid', 'order DEMO-… paid'],
    'each order\'s outcome, from its event')

  const steps = records.filter((record) => record.reqId !== undefined).map((record) => String(record.msg))
  const count = (message: string) => steps.filter((step) => step === message).length
  t.equal(count('checkout: payment stored, buyer sent to pay'), 5)
  t.equal(count('capture: buyer sent to the payment provider'), 4)
  t.equal(count('capture: buyer sent to the done page'), 5)
  t.equal(count('done: result shown'), 5)
  t.equal(count('GET /nowhere: not found'), 1)
  t.equal(count('checkout: form refused (400)'), 1)
  t.equal(count('checkout page: shown'), 2)
  t.equal(count('checkout page: refused: too many attempts'), 1)
  t.ok(steps.some((step) => step === 'webhook (paypal): handled') && steps.some((step) => step === 'webhook (paypal-checkout): handled'), 'webhooks for both PayPal APIs')
  t.notMatch(log.text(), /"msg":"(incoming request|request completed)"/, 'not Fastify\'s pair of lines per request')
  t.notMatch(log.text(), /\/payment\/(capture|done)\/[\w-]{20,}/, 'no token in the log')
})

// A shop of its own, so the walk above keeps its counts: the Stripe paths, each with the log at info.
t.test('the Stripe paths: pages all the way, one line per request and per order, nothing at warn or above', async (t) => {
  const stripeLog = captureLog()
  const shop = await buildDemoShop({ logger: { level: 'info', stream: stripeLog.stream }, rateLimits: false })
  t.teardown(() => shop.close())
  const answered: string[] = []
  shop.addHook('onResponse', async (request) => { answered.push(request.id) })
  const address = await shop.listen({ port: 0, host: '127.0.0.1' })
  const stripe = shop.stripeSimulator?.simulator

  /** Checkout with Stripe, then the capture route: ends on Stripe's hosted page. */
  async function toStripe (amount: string): Promise<string> {
    const checkout = await visit(`${address}/checkout`, { method: 'POST', body: `amount=${amount}&currency=EUR&gateway=stripe`, headers: FORM })
    const capture = await visit(checkout.location)
    t.equal(new URL(capture.location).origin, stripe?.baseUrl(), 'capture sends the buyer to Stripe')
    return capture.location
  }
  /** A choice on Stripe's page (or its 3-D Secure page); where it leads, followed to the shop's done page. */
  async function choose (url: string, form: string): Promise<Answer> {
    const answer = await visit(url, { method: 'POST', body: form, headers: FORM })
    if (!answer.location.startsWith(address)) return answer
    const back = await visit(answer.location)
    t.equal(back.statusCode, 302, 'the return leads to the done page')
    return await visit(back.location)
  }
  const heading = (answer: Answer) => /<h1>([^<]*)<\/h1>/.exec(answer.body)?.[1]

  t.equal(heading(await choose(await toStripe('19.99'), 'action=pay&payment_method=pm_card_visa')), 'Thank you', 'paid')
  const declined = await toStripe('5.00')
  t.equal((await choose(declined, 'action=pay&payment_method=pm_card_chargeDeclined')).statusCode, 402, 'declined: Stripe\'s page again')
  t.equal(heading(await choose(declined, 'action=pay&payment_method=pm_card_visa')), 'Thank you', 'then paid')
  const challenged = await choose(await toStripe('8.00'), 'action=pay&payment_method=pm_card_authenticationRequired')
  t.equal(heading(await choose(new URL(challenged.location, stripe?.baseUrl()).href, 'action=complete')), 'Thank you', '3-D Secure passed')
  const failing = await toStripe('9.00')
  const failed = await choose(new URL((await choose(failing, 'action=pay&payment_method=pm_card_authenticationRequired')).location, stripe?.baseUrl()).href, 'action=fail')
  t.match(failed.body, 'role="alert"', '3-D Secure failed: Stripe\'s page says so')
  t.equal(heading(await choose(failing, 'action=cancel')), 'Payment canceled', 'then back to the shop')
  t.equal(heading(await choose(await toStripe('4.00'), 'action=cancel')), 'Payment canceled', 'the hosted page\'s back button')

  await stripe?.webhooks.waitForIdle()
  await shop.paywire.events.drain()
  const records = stripeLog.records()
  t.same(records.filter((record) => Number(record.level) >= 40), [], 'no warn, error or fatal line')
  const byRequest = new Map<unknown, string[]>()
  for (const record of records.filter((record) => record.reqId !== undefined)) byRequest.set(record.reqId, [...byRequest.get(record.reqId) ?? [], String(record.msg)])
  t.same([...byRequest.keys()].sort(), [...answered].sort(), 'a line for every request the shop answered')
  t.same([...byRequest.values()].filter((lines) => lines.length !== 1), [], 'and only one')
  const orders = records.filter((record) => record.reqId === undefined).map((record) => String(record.msg)).slice(1)
    .map((message) => message.replace(/DEMO-[0-9A-Z]+-[0-9A-F]{10}/, 'DEMO-…')).sort()
  t.same(orders, ['order DEMO-… not paid: payment canceled', 'order DEMO-… not paid: payment canceled', 'order DEMO-… paid', 'order DEMO-… paid', 'order DEMO-… paid'])
  const steps = [...byRequest.values()].flat()
  t.equal(steps.filter((step) => step === 'capture: buyer sent to the payment provider').length, 5)
  t.equal(steps.filter((step) => step === 'done: result shown').length, 5)
  t.ok(steps.includes('webhook (stripe): handled'), 'Stripe\'s webhooks reach the stripe gateway\'s notify URL')
  t.notMatch(stripeLog.text(), /sk_test_|whsec_|\/payment\/(capture|done)\/[\w-]{20,}/, 'no key, secret or token in the log')
})
