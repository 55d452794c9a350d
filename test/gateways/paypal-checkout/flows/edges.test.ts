import t from 'tap'
import { Cancel, Refund } from '../../../../plugins/core/index.ts'
import { untilDelivered } from '../../paypal-rest/fixtures/integrity.ts'
import type { Shop } from '../../paypal-rest/fixtures/shop.ts'
import { callPaypal, captureOf, comeBack, decide, exclusive, pay, startCheckoutShop, startJourney, statusOf } from '../fixtures/shop.ts'

t.test('captured elsewhere (another process) before the buyer came back: ORDER_ALREADY_CAPTURED reads PayPal\'s order', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  const returnUrl = await decide(journey.approvalUrl, 'approve')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  t.equal((await callPaypal(shop, 'POST', `/v2/checkout/orders/${journey.orderId}/capture`, {})).status, 201)
  t.equal((await comeBack(returnUrl)).status, 'captured')
  t.notOk('error' in (await statusOf(shop, journey.id)).details)
  t.equal(shop.paypal.simulator.orders.counters().ordersCaptured, 1)
  shop.paypal.simulator.webhooks.resume()
})

t.test('cancelled here, captured at PayPal anyway: PayPal\'s word wins (overrule), logged', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  await decide(journey.approvalUrl, 'approve')
  await shop.paypal.simulator.webhooks.waitForIdle()
  await exclusive(shop, journey.id, (model) => new Cancel(model))
  t.equal((await statusOf(shop, journey.id)).status, 'canceled')
  await callPaypal(shop, 'POST', `/v2/checkout/orders/${journey.orderId}/capture`, {})
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.COMPLETED')
  const after = await statusOf(shop, journey.id)
  t.equal(after.status, 'captured')
  t.notOk('paywire_state' in after.details)
  await t.rejects(exclusive(shop, journey.id, (model) => new Cancel(model)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
})

t.test('a refund whose answer was lost stays pending; the next Refund settles it with the same id: refunded once', async (t) => {
  const shop = await startCheckoutShop(t, { config: { 'http.Retry': 0 } })
  const journey = await pay(shop)
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: '/v2/payments/captures/*/refund' })
  await t.rejects(exclusive(shop, journey.id, (model) => new Refund(model, { amount: 300 })), { code: 'PAYWIRE_ERR_PROVIDER' })
  t.match((await statusOf(shop, journey.id)).details.paywire_refunds, [{ state: 'pending', requested: 300 }])
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 300 }))
  const after = await statusOf(shop, journey.id)
  t.match(after.details.paywire_refunds, [{ state: 'completed', requested: 300 }])
  t.equal(after.details.paywire_refunds.length, 1)
  t.same(after.amounts, { captured: 1999, refunded: 300, reversed: 0 })
  t.match(shop.paypal.simulator.orders.counters(), { refunds: 1 })
  t.equal(captureOf(after.details).status, 'PARTIALLY_REFUNDED')
})

t.test('a void PayPal refuses for good (captured at PayPal already: PREVIOUSLY_CAPTURED): a coded error', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'authorize')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  const authorizationId = (await statusOf(shop, journey.id)).details.purchase_units[0].payments.authorizations[0].id
  await callPaypal(shop, 'POST', `/v2/payments/authorizations/${authorizationId}/capture`, {})
  await t.rejects(exclusive(shop, journey.id, (model) => new Cancel(model)), { code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED', providerCode: 'PREVIOUSLY_CAPTURED' })
  shop.paypal.simulator.webhooks.resume()
})
