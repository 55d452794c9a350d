import t from 'tap'
import { Authorize, Cancel, Capture, Payment, Sync, isErrorCode } from '../../../../plugins/core/index.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { GATEWAY, checkout, comeBack, exclusive, pay, readDone, startJourney, startStripeShop, statusOf, storedPayment, submit, visit } from '../fixtures/shop.ts'

t.test('what the session asks for: currencies in Stripe\'s units, a line item named after the order, no email Stripe would refuse', async (t) => {
  const shop = await startStripeShop(t)
  const isk = await startJourney(shop, { totalAmount: 500, currencyCode: 'ISK', description: '', number: 'ORDER-ISK', clientEmail: 'not an email' })
  const session = await shop.sdk.checkout.sessions.retrieve(isk.sessionId)
  t.match(session, { amount_total: 50_000, currency: 'isk', customer_email: null, metadata: { paywire_number: 'ORDER-ISK' } })
  t.match((await visit(isk.sessionUrl)).body, /<li>ORDER-ISK × 1:/, 'the line item Stripe\'s page shows')
  const plain = await startJourney(shop, { totalAmount: 300, currencyCode: 'JPY', description: '', number: '' })
  const unnamed = await shop.sdk.checkout.sessions.retrieve(plain.sessionId)
  t.match(unnamed, { amount_total: 300, currency: 'jpy' })
  t.same(Object.keys(unnamed.metadata ?? {}), ['paywire_payment'])
  t.match((await visit(plain.sessionUrl)).body, /<li>Order × 1:/)
  const long = await startJourney(shop, { description: '☕'.repeat(300) })
  t.equal([...(await storedPayment(shop, long.id)).details.line_item_name].length, 250, 'cut on code points')

  const zero = await checkout(shop, { totalAmount: 0 })
  const refused = await visit(zero.captureUrl, { headers: { accept: 'application/json' } })
  t.equal(refused.status, 400)
  t.match(JSON.parse(refused.body), { code: 'PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED' })
  t.equal(shop.stripe.simulator.counters().sessionsCreated, 3, 'nothing was sent for it')
})

t.test('a Capture outside the routes needs the capture token: its URL is where Stripe sends the buyer back; a Sync before any session reads nothing', async (t) => {
  const shop = await startStripeShop(t)
  const started = await checkout(shop)
  const payment = await storedPayment(shop, started.id)
  await t.rejects(shop.app.paywire.executeExclusive(GATEWAY, payment, (model) => new Capture(model)), { code: 'PAYWIRE_ERR_TOKEN_REQUIRED' })
  t.equal(shop.stripe.simulator.counters().sessionsCreated, 0)
  const { changed } = await shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, started.id), (model) => new Sync(model))
  t.equal(changed, false)
  t.same(shop.stripe.simulator.calls(), {}, 'nothing was asked of Stripe')
})

t.test('a payment that settles later: pending while processing, then captured or failed as Stripe settles it', async (t) => {
  const shop = await startStripeShop(t)
  shop.stripe.simulator.payments.processNext(2)
  const settled = await pay(shop)
  t.equal(settled.status, 'pending')
  const details = (await statusOf(shop, settled.id)).details
  t.equal(details.status, 'processing')
  shop.stripe.simulator.payments.settle(details.id, 'succeeded')
  await shop.stripe.simulator.webhooks.waitForIdle()
  await assertAgree(t, shop, settled.id, 'captured')

  const journey = await startJourney(shop)
  const paid = await submit(journey.sessionUrl)
  const cancelUrl = new URL(journey.captureUrl)
  cancelUrl.searchParams.set('cancelled', '1')
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.equal((await comeBack(cancelUrl.href)).status, 'pending', 'a forged back button while processing: nothing is canceled')
  shop.stripe.simulator.payments.settle((await statusOf(shop, journey.id)).details.id, 'failed')
  await shop.stripe.simulator.webhooks.waitForIdle()
  await assertAgree(t, shop, journey.id, 'failed')
  t.equal(paid.status, 303)
})

t.test('the back button: after a decline the session is expired and the payment canceled; after paying, it stays paid', async (t) => {
  const shop = await startStripeShop(t)
  const declined = await startJourney(shop)
  await submit(declined.sessionUrl, 'pm_card_chargeDeclined')
  t.equal((await comeBack((await submit(declined.sessionUrl, 'pm_card_visa', 'cancel')).location)).status, 'canceled')
  t.equal(shop.stripe.simulator.checkout.session(declined.sessionId)?.status, 'expired')

  const paid = await startJourney(shop)
  await submit(paid.sessionUrl)
  await shop.stripe.simulator.webhooks.waitForIdle()
  const back = new URL(paid.captureUrl)
  back.searchParams.set('cancelled', '1')
  t.equal((await comeBack(back.href)).status, 'captured', 'Stripe\'s payment stands')
  t.equal(shop.stripe.simulator.counters().sessionsExpired, 1)
})

t.test('expiring the session fails at Stripe: the buyer gets a 502, the retry sends the same key and cancels', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  const back = (await submit(journey.sessionUrl, 'pm_card_visa', 'cancel')).location
  shop.stripe.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: '/v1/checkout/sessions/*/expire' })
  const failed = await visit(back, { headers: { accept: 'application/json' } })
  t.equal(failed.status, 502)
  t.match((await statusOf(shop, journey.id)).details.paywire_idempotency, { expire_session: `${journey.id}:expire_session:1` })
  const done = await comeBack(back)
  t.equal(done.status, 'canceled')
})

t.test('Stripe refuses a cancel or a capture: a provider error naming Stripe\'s code, the payment as Stripe has it', async (t) => {
  const shop = await startStripeShop(t)
  const captured = await pay(shop, { totalAmount: 2000 }, 'authorize')
  const intentId = (await statusOf(shop, captured.id)).details.id as string
  shop.stripe.simulator.webhooks.pause()
  // Captured from Stripe's dashboard (another client) meanwhile: Paywire still reads authorized.
  await shop.sdk.paymentIntents.capture(intentId)
  const cancel = await exclusive(shop, captured.id, (model) => new Cancel(model)).catch((error: Error) => error)
  t.match(cancel, { code: 'PAYWIRE_ERR_PROVIDER', provider: 'Stripe', providerCode: 'payment_intent_unexpected_state' })
  shop.stripe.simulator.webhooks.resume()
  await shop.stripe.simulator.webhooks.waitForIdle()
  await assertAgree(t, shop, captured.id, 'captured')

  const held = await pay(shop, { totalAmount: 2000 }, 'authorize')
  const zero = await exclusive(shop, held.id, (model) => new Capture(model, { amount: 0 })).catch((error: Error) => error)
  t.match(zero, { code: 'PAYWIRE_ERR_PROVIDER', provider: 'Stripe', debugId: /^req_/ })
  t.equal((await statusOf(shop, held.id)).status, 'authorized', 'read again: still authorized')
  await exclusive(shop, held.id, (model) => new Authorize(model))
  t.equal(shop.stripe.simulator.counters().sessionsCreated, 2, 'Authorize of an authorized payment does nothing')
  await exclusive(shop, held.id, (model) => new Capture(model))
  await assertAgree(t, shop, held.id, 'captured')
})

t.test('the notify and sync token routes read the payment from Stripe', async (t) => {
  const shop = await startStripeShop(t, { webhooks: false })
  const journey = await startJourney(shop)
  await submit(journey.sessionUrl)
  t.equal((await statusOf(shop, journey.id)).status, 'pending', 'no webhook: Paywire has not heard')
  const payment = await shop.app.paywire.getStorage(Payment).find(journey.id) as Payment
  const notify = await shop.app.paywire.getTokenFactory().createNotifyToken(GATEWAY, payment)
  t.equal((await visit(notify.targetUrl, { body: '' })).status, 204)
  t.equal((await statusOf(shop, journey.id)).status, 'captured')
  const refunded = await pay(shop)
  await shop.sdk.refunds.create({ payment_intent: (await statusOf(shop, refunded.id)).details.id, amount: 500 })
  const sync = await shop.app.paywire.getTokenFactory().createSyncToken(GATEWAY, await shop.app.paywire.getStorage(Payment).find(refunded.id) as Payment, 'done')
  const synced = await visit(sync.targetUrl)
  t.equal((await readDone(synced.location)).status, 'refunded', 'a refund made at Stripe\'s dashboard, read by Sync')
  await assertAgree(t, shop, refunded.id, 'refunded')
  t.ok(isErrorCode(await exclusive(shop, refunded.id, (model) => new Cancel(model)).catch((error: Error) => error), 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED'))
})
