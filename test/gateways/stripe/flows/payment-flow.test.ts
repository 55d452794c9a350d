import t from 'tap'
import { assertAgree } from '../fixtures/truth.ts'
import { challenge, comeBack, pay, readDone, startJourney, startStripeShop, statusOf, submit, visit } from '../fixtures/shop.ts'

t.test('a buyer pays on Stripe\'s page and comes back: captured, the session and PaymentIntent read from Stripe', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 2500, currencyCode: 'EUR', description: 'Teapot', clientEmail: 'buyer@example.com' })
  t.equal(paid.status, 'captured')
  const { details } = await assertAgree(t, shop, paid.id, 'captured')
  t.match(details, { amount: 2500, currency: 'eur', status: 'succeeded', amount_received: 2500, checkout_session: { id: paid.sessionId, status: 'complete' } })
  const session = await shop.sdk.checkout.sessions.retrieve(paid.sessionId)
  t.match(session, { client_reference_id: paid.id, metadata: { paywire_payment: paid.id }, customer_email: 'buyer@example.com', amount_total: 2500, currency: 'eur' })
  const intent = await shop.sdk.paymentIntents.retrieve(details.id)
  t.match(intent, { metadata: { paywire_payment: paid.id }, description: 'Teapot', capture_method: 'automatic' })
  t.equal(details.client_secret, undefined, 'no client secret is stored')
  t.match(shop.stripe.simulator.counters(), { sessionsCreated: 1, paymentIntentsCreated: 1 })
})

t.test('declined, then paid with another card on the same session: pending in between, captured once', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  const declined = await submit(journey.sessionUrl, 'pm_card_chargeDeclined')
  t.equal(declined.status, 402, 'Stripe\'s page tells the buyer')
  await shop.stripe.simulator.webhooks.waitForIdle()
  const between = await statusOf(shop, journey.id)
  t.equal(between.status, 'pending', 'the buyer may still pay while the session is open')
  t.match(between.details.last_payment_error, { code: 'card_declined', decline_code: 'generic_decline' })
  const paid = await submit(journey.sessionUrl, 'pm_card_visa')
  t.equal(paid.status, 303)
  t.equal((await comeBack(paid.location)).status, 'captured')
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('3-D Secure passed: captured', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  const toChallenge = await submit(journey.sessionUrl, 'pm_card_authenticationRequired')
  t.equal(toChallenge.status, 303)
  const back = await challenge(toChallenge.location, true)
  t.equal((await comeBack(back.location)).status, 'captured')
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('3-D Secure failed, then the session expires: failed, nothing taken', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  const toChallenge = await submit(journey.sessionUrl, 'pm_card_authenticationRequired')
  const failed = await challenge(toChallenge.location, false)
  t.equal(failed.status, 402, 'back on Stripe\'s page, told why')
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.equal((await statusOf(shop, journey.id)).status, 'pending')
  // Back at the shop without paying (a reload): sent to Stripe's page again.
  t.equal((await visit(journey.captureUrl)).location, journey.sessionUrl)
  shop.stripe.simulator.clock.advance(24 * 3600 * 1000 + 1000)
  await shop.stripe.simulator.webhooks.waitForIdle()
  const after = await assertAgree(t, shop, journey.id, 'failed')
  t.match(after.details, { checkout_session: { status: 'expired' }, last_payment_error: { code: 'payment_intent_authentication_failure' } })
})

t.test('the buyer goes back from Stripe\'s page: the session is expired, the payment canceled', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  const back = await submit(journey.sessionUrl, 'pm_card_visa', 'cancel')
  t.equal(back.status, 303)
  const done = await comeBack(back.location)
  t.equal(done.status, 'canceled')
  t.equal(shop.stripe.simulator.checkout.session(journey.sessionId)?.status, 'expired', 'nobody can pay it later')
  t.equal((await visit(journey.sessionUrl)).status, 200)
  t.equal((await readDone(done.doneUrl)).status, 'canceled')
})
