import t from 'tap'
import { Cancel, Refund, Sync, isErrorCode } from '../../../../plugins/core/index.ts'
import { TestHttpClient } from '../fixtures/http.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { GATEWAY, exclusive, readDone, startJourney, startStripeShop, statusOf, storedPayment, submit, visit } from '../fixtures/shop.ts'

const SESSION_READ = /^\/v1\/checkout\/sessions\/[^/]+$/

t.test('the buyer\'s return and Stripe\'s webhooks at once: the webhooks are told busy (409) while the return holds the payment; redelivered, nothing changes twice', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const journey = await startJourney(shop)
  shop.stripe.simulator.webhooks.pause()
  const paid = await submit(journey.sessionUrl)
  const held = http.hold('GET', SESSION_READ)
  const buyer = visit(paid.location)
  await held.reached
  shop.stripe.simulator.webhooks.resume()
  await shop.stripe.simulator.webhooks.waitForIdle()
  const deliveries = shop.stripe.simulator.webhooks.deliveries()
  t.ok(deliveries.length > 0)
  t.ok(deliveries.every((delivery) => delivery.attempts.map((attempt) => attempt.statusCode).join() === '409'), 'every first attempt met the buyer\'s claim')
  held.release()
  const back = await buyer
  t.equal(back.status, 302)
  t.equal((await readDone(back.location)).status, 'captured')
  const events = (await storedPayment(shop, journey.id)).details.paywire_webhook_events
  t.same(events, undefined, 'no event was taken while the return ran')
  // Stripe retries after 5 minutes: each redelivery reads Stripe once and changes nothing.
  shop.stripe.simulator.clock.advance(5 * 60 * 1000 + 1000)
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.ok(shop.stripe.simulator.webhooks.deliveries().every((delivery) => delivery.attempts.at(-1)?.statusCode === 204))
  await assertAgree(t, shop, journey.id, 'captured')
  t.match(shop.stripe.simulator.counters(), { sessionsCreated: 1, sessionsCompleted: 1 })
})

t.test('a double-clicked return: one holds the payment, the other is told it is busy; then the used link goes to the result', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http, webhooks: false })
  const journey = await startJourney(shop)
  const paid = await submit(journey.sessionUrl)
  const held = http.hold('GET', SESSION_READ)
  const first = visit(paid.location)
  await held.reached
  const second = await visit(paid.location, { headers: { accept: 'application/json' } })
  t.equal(second.status, 409)
  t.match(JSON.parse(second.body), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  held.release()
  const done = await first
  t.equal(done.status, 302)
  const again = await visit(paid.location)
  t.equal(again.status, 303, 'the used link redirects to the result, running nothing')
  t.equal(again.location, done.location)
  t.equal(http.sent.filter((sent) => SESSION_READ.test(sent.path)).length, 1, 'Stripe was read once')
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('a back-office Sync during a refund is told busy and leaves nothing half done', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const journey = await startJourney(shop)
  await submit(journey.sessionUrl)
  await shop.stripe.simulator.webhooks.waitForIdle()
  const held = http.hold('POST', /^\/v1\/refunds$/)
  const refund = exclusive(shop, journey.id, (model) => new Refund(model, { amount: 500 }))
  await held.reached
  const sync = await shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, journey.id), (model) => new Sync(model)).catch((error: Error) => error)
  t.ok(isErrorCode(sync, 'PAYWIRE_ERR_PAYMENT_BUSY'))
  held.release()
  await refund
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.same((await assertAgree(t, shop, journey.id, 'refunded')).amounts, { captured: 1999, refunded: 500, reversed: 0 })
})

t.test('the shop cancels while the buyer pays: Stripe\'s payment stands, the cancel is refused', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  shop.stripe.simulator.webhooks.pause()
  await submit(journey.sessionUrl)
  t.equal((await statusOf(shop, journey.id)).status, 'pending', 'Paywire has not heard yet')
  const cancel = await exclusive(shop, journey.id, (model) => new Cancel(model)).catch((error: Error) => error)
  t.match(cancel, { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED', message: /captured/ })
  shop.stripe.simulator.webhooks.resume()
  await shop.stripe.simulator.webhooks.waitForIdle()
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('the shop cancels before the buyer pays: the session is expired, the buyer cannot pay it', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  await exclusive(shop, journey.id, (model) => new Cancel(model))
  t.equal((await statusOf(shop, journey.id)).status, 'canceled')
  const late = await visit(journey.sessionUrl, { form: { payment_method: 'pm_card_visa', action: 'pay' } })
  t.match(late, { status: 409, body: /no longer available/ })
  t.equal(shop.stripe.simulator.checkout.session(journey.sessionId)?.status, 'expired')
  await exclusive(shop, journey.id, (model) => new Cancel(model))
  t.equal(shop.stripe.simulator.counters().sessionsExpired, 1, 'canceled already: nothing sent')
})
