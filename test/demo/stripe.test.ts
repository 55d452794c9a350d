/*
 * The demo's Stripe wiring (demo/stripe.ts): the "stripe" gateway pays through the in-process
 * simulator, its notify URL hears the gateway's events, signed; credentials from the environment
 * are checked by shape and never repeated.
 */
import t from 'tap'
import { request } from 'undici'
import { buildDemoShop } from '../../app.ts'
import { DemoConfigError, readStripeEnvironment } from '../../demo/environment.ts'
import { startupMessage } from '../../demo/start.ts'
import { SCHEDULE_MS, STRIPE_WEBHOOK_EVENTS } from '../../demo/stripe.ts'
import { runDoctor } from '../../scripts/doctor/doctor.ts'
import { envWith } from '../helpers/child-process.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

async function follow (url: string, init: { body?: string } = {}): Promise<{ statusCode: number, location: string, body: string }> {
  const response = await request(url, init.body === undefined ? {} : { method: 'POST', body: init.body, headers: FORM })
  return { statusCode: response.statusCode, location: new URL(String(response.headers.location ?? ''), url).href, body: await response.body.text() }
}

t.test('the demo offers "Card (Stripe)" and pays through the in-process simulator, its webhooks signed and accepted', async (t) => {
  const app = await buildDemoShop({ rateLimits: false })
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const simulator = app.stripeSimulator?.simulator
  t.teardown(() => simulator?.webhooks.waitForIdle())
  t.match(await (await request(`${address}/`)).body.text(), '<option value="stripe">Card (Stripe)</option>')
  t.same(simulator?.webhooks.endpoints().map(({ url, enabledEvents }) => [url, enabledEvents]),
    [[`${address}/payment/notify/unsafe/stripe`, [...STRIPE_WEBHOOK_EVENTS]]], 'one endpoint, at the stripe gateway\'s notify URL')

  const checkout = await follow(`${address}/checkout`, { body: 'amount=19.99&currency=EUR&gateway=stripe' })
  t.equal(checkout.statusCode, 302)
  const toStripe = await follow(checkout.location)
  t.equal(toStripe.statusCode, 302)
  t.equal(new URL(toStripe.location).origin, simulator?.baseUrl(), 'the buyer is sent to the simulator\'s hosted page')
  t.match((await follow(toStripe.location)).body, 'Pay 19.99 EUR')
  const paid = await follow(toStripe.location, { body: 'action=pay&payment_method=pm_card_visa' })
  t.equal(paid.statusCode, 303)
  t.match(paid.location, `${address}/payment/capture/`, 'back to the capture token\'s URL')
  const back = await follow(paid.location)
  t.equal(back.statusCode, 302)
  const done = await request(back.location, { headers: { accept: 'application/json' } })
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 1999, currencyCode: 'EUR' } })

  await simulator?.webhooks.waitForIdle()
  const deliveries = simulator?.webhooks.deliveries() ?? []
  t.ok(deliveries.some((delivery) => delivery.eventType === 'checkout.session.completed'), 'Stripe told the shop')
  t.ok(deliveries.every((delivery) => STRIPE_WEBHOOK_EVENTS.includes(delivery.eventType as never)), 'only the events subscribed to')
  t.ok(deliveries.every((delivery) => (delivery.attempts.at(-1)?.statusCode ?? 0) < 300), 'the shop verified and accepted each one')
})

t.test('the in-process simulator keeps Stripe\'s schedule in real time: a delivery that fell due is sent without anyone moving its clock', async (t) => {
  const app = await buildDemoShop({ paypal: false, rateLimits: false })
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const simulator = app.stripeSimulator?.simulator
  t.teardown(() => simulator?.webhooks.waitForIdle())
  // As a retry is: scheduled for later (here 1 ms), then due by the clock.
  simulator?.webhooks.delayNext(1, 100)
  const checkout = await follow(`${address}/checkout`, { body: 'amount=3&currency=EUR&gateway=stripe' })
  const toStripe = await follow(checkout.location)
  await follow(toStripe.location, { body: 'action=pay&payment_method=pm_card_visa' })
  const started = Date.now()
  const sent = () => simulator?.webhooks.deliveries().filter((delivery) => delivery.eventType === 'checkout.session.completed' && delivery.status === 'delivered') ?? []
  // Real time is what is under test: polled, with a bound ten periods long.
  while (sent().length === 0 && Date.now() - started < 10 * SCHEDULE_MS) await new Promise((resolve) => setTimeout(resolve, SCHEDULE_MS / 10))
  t.equal(sent().length, 1, 'delivered by the demo\'s schedule')
})

t.test('with credentials, the stripe gateway is built for Stripe itself, and no simulator starts', async (t) => {
  const app = await buildDemoShop({ paypal: false, stripe: { secretKey: 'sk_test_demo', webhookSecret: 'whsec_demo' } })
  t.teardown(() => app.close())
  await app.ready()
  t.equal(app.stripeSimulator, undefined)
  t.same(app.paywire.getGatewayNames(), ['offline', 'stripe'])
  const none = await buildDemoShop({ paypal: false, stripe: false })
  t.teardown(() => none.close())
  t.same(none.paywire.getGatewayNames(), ['offline'], 'stripe: false leaves it out')
})

t.test('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET: both for Stripe, neither for the simulator, each checked without repeating it', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  const names = ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']
  process.env = envWith({}, names)
  t.equal(readStripeEnvironment(), 'simulator')
  process.env = envWith({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' })
  t.equal(readStripeEnvironment(), 'simulator', 'empty is unset')
  process.env = envWith({ STRIPE_SECRET_KEY: 'sk_live_canary1', STRIPE_WEBHOOK_SECRET: 'whsec_canary2, whsec_canary3' })
  t.same(readStripeEnvironment(), { secretKey: 'sk_live_canary1', webhookSecret: 'whsec_canary2, whsec_canary3' })

  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ STRIPE_SECRET_KEY: 'sk_test_canary1' }, /^STRIPE_SECRET_KEY is set without STRIPE_WEBHOOK_SECRET: set both/],
    [{ STRIPE_WEBHOOK_SECRET: 'whsec_canary2' }, /^STRIPE_WEBHOOK_SECRET is set without STRIPE_SECRET_KEY/],
    [{ STRIPE_SECRET_KEY: 'pk_test_canary1', STRIPE_WEBHOOK_SECRET: 'whsec_canary2' }, /^STRIPE_SECRET_KEY is a publishable key \(pk_…\): use the secret key/],
    [{ STRIPE_SECRET_KEY: 'canary1', STRIPE_WEBHOOK_SECRET: 'whsec_canary2' }, /^STRIPE_SECRET_KEY is not a Stripe secret key: use sk_test_… or sk_live_…/],
    [{ STRIPE_SECRET_KEY: 'sk_test_canary1', STRIPE_WEBHOOK_SECRET: 'sk_test_canary2' }, /^STRIPE_WEBHOOK_SECRET is not a webhook signing secret: use the whsec_…/]
  ]
  for (const [variables, message] of cases) {
    process.env = envWith(variables, names.filter((name) => !(name in variables)))
    const error = (() => { try { readStripeEnvironment(); return null } catch (error) { return error } })()
    t.ok(error instanceof DemoConfigError, JSON.stringify(variables))
    t.match(startupMessage(error), message)
    t.notMatch(startupMessage(error), 'canary', 'never the value')
  }
})

t.test('paywire doctor on the demo shop: the stripe gateway is built and checked like the others, its keys not shown', async (t) => {
  let out = ''
  const code = await runDoctor(['app.ts#buildDemoShop'], { out: (text) => { out += text }, err: () => {} })
  t.equal(code, 0)
  t.match(out, /^paypal +paypal_rest +2\.0 +ok$/m)
  t.match(out, /^stripe +stripe +2\.0 +ok$/m)
  t.notMatch(out, /sk_test_|whsec_/)
})
