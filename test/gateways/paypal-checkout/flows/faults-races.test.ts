import t from 'tap'
import { decide, startCheckoutShop, startJourney, statusOf, visit, type CheckoutShop } from '../fixtures/shop.ts'

const CAPTURE = '/v2/checkout/orders/*/capture'
const CREATE = '/v2/checkout/orders'

function captureCalls (shop: CheckoutShop) {
  return shop.paypal.simulator.requests({ method: 'POST', path: CAPTURE })
}

/** The buyer approved at PayPal and is on the way back: the return URL. */
async function approved (shop: CheckoutShop) {
  const journey = await startJourney(shop)
  const returnUrl = await decide(journey.approvalUrl, 'approve')
  // CHECKOUT.ORDER.APPROVED is handled before faults are armed: its look-up must not take them.
  await shop.paypal.simulator.webhooks.waitForIdle()
  return { ...journey, returnUrl }
}

async function done (url: string): Promise<string> {
  const back = await visit(url)
  if (back.status !== 302 && back.status !== 303) return `HTTP ${back.status}`
  const page = await visit(back.location, { headers: { accept: 'application/json' } })
  return JSON.parse(page.body).status
}

t.test('5xx before the work: retried with the same PayPal-Request-Id, captured once', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: CAPTURE, times: 2 })
  t.equal(await done(journey.returnUrl), 'captured')
  const calls = captureCalls(shop)
  t.same(calls.map((call) => call.statusCode), [503, 503, 201])
  t.equal(new Set(calls.map((call) => call.paypalRequestId)).size, 1, 'one request id for every attempt')
  t.equal(calls[0]?.paypalRequestId, (await statusOf(shop, journey.id)).details.paywire_request_ids.capture)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('5xx after the work: the retry is PayPal\'s replay, captured once', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: CAPTURE })
  t.equal(await done(journey.returnUrl), 'captured')
  t.same(captureCalls(shop).map((call) => call.statusCode), [500, 200])
  t.match(shop.paypal.simulator.counters(), { idempotentReplays: 1 })
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('capture lost after the work: PayPal\'s order is looked up at once, captured', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 } })
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: CAPTURE })
  t.equal(await done(journey.returnUrl), 'captured')
  t.equal(captureCalls(shop).length, 1)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('capture and its look-up lost: a 502 for the buyer; their retry looks the order up and never captures again', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 } })
  const journey = await approved(shop)
  // PAYMENT.CAPTURE.COMPLETED would tell the shop too: held back, so the buyer's retry is what finds out.
  shop.paypal.simulator.webhooks.pause()
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: CAPTURE })
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v2/checkout/orders/*' })
  const first = await visit(journey.returnUrl, { headers: { accept: 'application/json' } })
  t.equal(first.status, 502)
  t.match(JSON.parse(first.body), { code: 'PAYWIRE_ERR_PROVIDER' })
  t.match((await statusOf(shop, journey.id)).details, { status: 'APPROVED', paywire_attempts: { capture: true } })
  t.equal(await done(journey.returnUrl), 'captured')
  t.equal(captureCalls(shop).length, 1, 'the order was looked up, not captured again')
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
  t.notOk((await statusOf(shop, journey.id)).details.paywire_attempts.capture)
  shop.paypal.simulator.webhooks.resume()
})

t.test('a late retry after PayPal forgot the request id (6 h): looked up first, still captured once', async (t) => {
  let now = Date.now()
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 }, simulator: { now: () => now } })
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, when: 'after', method: 'POST', path: CAPTURE })
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v2/checkout/orders/*' })
  t.equal((await visit(journey.returnUrl)).status, 502)
  now += 6 * 3600 * 1000 + 1
  t.equal(await done(journey.returnUrl), 'captured')
  t.equal(captureCalls(shop).length, 1)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('a capture that never reached PayPal (5xx before, every attempt): the retry GETs, finds it approved, captures once', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 } })
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, method: 'POST', path: CAPTURE })
  t.equal((await visit(journey.returnUrl)).status, 502)
  t.equal(shop.paypal.simulator.orders.counters().ordersCaptured, 0)
  t.equal(await done(journey.returnUrl), 'captured')
  const calls = captureCalls(shop)
  t.equal(calls.length, 2)
  t.equal(calls[0]?.paypalRequestId, calls[1]?.paypalRequestId, 'the same id: PayPal never did it')
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('a timeout (answer slower than http.CURLOPT_TIMEOUT) then a retry: captured once', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.CURLOPT_TIMEOUT': 1 } })
  const journey = await approved(shop)
  shop.paypal.simulator.faults.inject({ kind: 'delay', delayMs: 5000, when: 'after', method: 'POST', path: CAPTURE })
  t.equal(await done(journey.returnUrl), 'captured')
  t.equal(captureCalls(shop).length, 2)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('connection resets before and after the work: 0 double captures, exact counters', async (t) => {
  const shop = await startCheckoutShop(t)
  const before = await approved(shop)
  const cut = shop.paypal.simulator.faults.hold({ method: 'POST', path: CAPTURE })
  const first = done(before.returnUrl)
  await cut.reached
  cut.reset()
  t.equal(await first, 'captured')
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })

  const after = await approved(shop)
  const lost = shop.paypal.simulator.faults.hold({ method: 'POST', path: CAPTURE, when: 'after' })
  const second = done(after.returnUrl)
  await lost.reached
  t.equal(shop.paypal.simulator.orders.counters().ordersCaptured, 2, 'the work is done, its answer about to be cut')
  lost.reset()
  t.equal(await second, 'captured')
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 2, ordersCreated: 2 })
  t.match(shop.paypal.simulator.counters(), { idempotentReplays: 1 })
})

t.test('create answered 503 after the work on every attempt: the retry gets the same order back', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 } })
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, when: 'after', method: 'POST', path: CREATE })
  const journey = await startJourney(shop).catch((error: Error) => error)
  t.match(journey, { message: /capture answered 502/ })
  const second = await startJourney(shop)
  t.equal(shop.paypal.simulator.orders.counters().ordersCreated, 2, 'the first checkout\'s order, and this one')
  t.ok(second.orderId)
})

t.test('a double-clicked return: one capture holds the payment, the other is told it is busy; captured once', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await approved(shop)
  const held = shop.paypal.simulator.faults.hold({ method: 'POST', path: CAPTURE })
  const first = visit(journey.returnUrl)
  await held.reached
  const second = await visit(journey.returnUrl, { headers: { accept: 'application/json' } })
  t.equal(second.status, 409)
  t.match(JSON.parse(second.body), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  held.release()
  t.equal((await first).status, 302)
  t.equal(await done(journey.returnUrl), 'captured')
  t.equal(captureCalls(shop).length, 1)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
})

t.test('a webhook and the buyer\'s return race: the webhook is told busy (409) while the capture runs; redelivered, captured once', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  const held = shop.paypal.simulator.faults.hold({ method: 'POST', path: CAPTURE })
  const returnUrl = await decide(journey.approvalUrl, 'approve')
  const buyer = done(returnUrl)
  await held.reached
  // Every delivery attempt of CHECKOUT.ORDER.APPROVED meets the buyer's claim on the payment.
  await shop.paypal.simulator.webhooks.waitForIdle()
  const [delivery] = shop.paypal.simulator.webhooks.deliveries().filter((entry) => entry.eventType === 'CHECKOUT.ORDER.APPROVED')
  t.same(delivery?.attempts.map((attempt) => attempt.statusCode), [409, 409, 409])
  held.release()
  t.equal(await buyer, 'captured')
  // The capture's own events (PAYMENT.CAPTURE.COMPLETED, CHECKOUT.ORDER.COMPLETED) are handled first: the redelivery meets no claim.
  await shop.paypal.simulator.webhooks.waitForIdle()
  const [again] = await shop.paypal.simulator.webhooks.redeliver(delivery?.eventId as string)
  t.same(again?.attempts.map((attempt) => attempt.statusCode), [204])
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 1 })
  t.equal((await statusOf(shop, journey.id)).status, 'captured')
})
