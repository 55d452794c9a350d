import t from 'tap'
import { Cancel, Capture, Refund, Sync } from '../../../../plugins/core/index.ts'
import { captureOf, exclusive, pay, statusOf } from '../fixtures/shop.ts'
import { startCheckoutShop } from '../fixtures/shop.ts'

t.test('authorize → authorized; Capture captures the authorization once; Cancel is then refused', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'authorize')
  t.equal(journey.status, 'authorized')
  const authorized = await statusOf(shop, journey.id)
  t.match(authorized.details, { intent: 'AUTHORIZE', status: 'COMPLETED', purchase_units: [{ payments: { authorizations: [{ status: 'CREATED' }] } }] })
  t.equal(authorized.amounts, undefined, 'nothing captured yet')

  await exclusive(shop, journey.id, (model) => new Capture(model))
  const captured = await statusOf(shop, journey.id)
  t.equal(captured.status, 'captured')
  t.same(captured.amounts, { captured: 1999, refunded: 0, reversed: 0 })
  t.match(captured.details.purchase_units[0].payments.authorizations[0], { status: 'CAPTURED' })
  await exclusive(shop, journey.id, (model) => new Capture(model))
  t.match(shop.paypal.simulator.orders.counters(), { ordersAuthorized: 1, authorizationsCaptured: 1 })
  await t.rejects(exclusive(shop, journey.id, (model) => new Cancel(model)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
})

t.test('authorize → void: canceled, PayPal voided it once; capturing it afterwards does nothing', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'authorize')
  await exclusive(shop, journey.id, (model) => new Cancel(model))
  const voided = await statusOf(shop, journey.id)
  t.equal(voided.status, 'canceled')
  t.match(voided.details.purchase_units[0].payments.authorizations[0], { status: 'VOIDED' })
  t.match(voided.details.paywire_request_ids, { void: /-void$/ })
  await exclusive(shop, journey.id, (model) => new Capture(model))
  t.match(shop.paypal.simulator.orders.counters(), { authorizationsVoided: 1, authorizationsCaptured: 0 })
})

t.test('an authorization voided at PayPal meanwhile: capture is refused with a code, then its webhook reads canceled', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'authorize')
  const { details } = await statusOf(shop, journey.id)
  const authorizationId = details.purchase_units[0].payments.authorizations[0].id
  // PayPal's dashboard voids it; its webhook is held back until the shop has tried to capture.
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  const answer = await fetch(`${shop.endpoint}/v2/payments/authorizations/${authorizationId}/void`, {
    method: 'POST', headers: { authorization: `Bearer ${shop.paypal.simulator.issueAccessToken(shop.client.clientId)}`, 'content-type': 'application/json' }, body: '{}'
  })
  t.equal(answer.status, 204)
  await t.rejects(exclusive(shop, journey.id, (model) => new Capture(model)), { code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED', providerCode: 'AUTHORIZATION_VOIDED' })
  const after = await statusOf(shop, journey.id)
  t.equal(after.status, 'authorized')
  t.match(after.details.error, { issue: 'AUTHORIZATION_VOIDED', code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED' })
  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await statusOf(shop, journey.id)).status, 'canceled', 'PAYMENT.AUTHORIZATION.VOIDED brings PayPal\'s word')
})

t.test('refunds: partial then the rest; amounts follow; a refund beyond what is left is refused with a code', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop)
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 500 }))
  const partial = await statusOf(shop, journey.id)
  t.equal(partial.status, 'refunded')
  t.same(partial.amounts, { captured: 1999, refunded: 500, reversed: 0 })
  t.match(captureOf(partial.details), { status: 'PARTIALLY_REFUNDED' })
  t.match(partial.details.paywire_refunds, [{ state: 'completed', requested: 500, currency: 'EUR', amount: { value: '5.00', currency_code: 'EUR' } }])

  await t.rejects(exclusive(shop, journey.id, (model) => new Refund(model, { amount: 1500 })), { code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED', providerCode: 'REFUND_AMOUNT_EXCEEDED' })
  await exclusive(shop, journey.id, (model) => new Refund(model))
  const full = await statusOf(shop, journey.id)
  t.same(full.amounts, { captured: 1999, refunded: 1999, reversed: 0 })
  t.match(captureOf(full.details), { status: 'REFUNDED' })
  t.same(full.details.paywire_refunds.map((entry: { state: string }) => entry.state), ['completed', 'refused', 'completed'])
  t.equal(new Set(full.details.paywire_refunds.map((entry: { requestId: string }) => entry.requestId)).size, 3, 'each refund its own request id')
  await t.rejects(exclusive(shop, journey.id, (model) => new Refund(model)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
  t.equal(shop.paypal.simulator.orders.counters().refunds, 2)
})

t.test('refunding or canceling a payment that never got to PayPal: not allowed / canceled locally', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'capture', 'cancel')
  t.equal(journey.status, 'canceled')
  await t.rejects(exclusive(shop, journey.id, (model) => new Refund(model)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
})

t.test('a refund PayPal answers PENDING counts once its money moves; a FAILED or CANCELLED one never counts', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop)
  const orders = shop.paypal.simulator.orders
  orders.queueRefundOutcome('PENDING')
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 500 }))
  const pending = await statusOf(shop, journey.id)
  t.match(pending.details.paywire_refunds, [{ state: 'processing', refund_status: 'PENDING', requested: 500 }])
  t.same(pending.amounts, { captured: 1999, refunded: 0, reversed: 0 }, 'an eCheck refund: nothing went back yet')

  orders.settleRefund(pending.details.paywire_refunds[0].id, 'COMPLETED')
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.same((await statusOf(shop, journey.id)).amounts, { captured: 1999, refunded: 500, reversed: 0 }, 'counted once PayPal lists it COMPLETED')

  orders.queueRefundOutcome('FAILED')
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 300 }))
  orders.queueRefundOutcome('CANCELLED')
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 200 }))
  const failed = await statusOf(shop, journey.id)
  t.match(failed.details.paywire_refunds.slice(1), [{ state: 'failed', refund_status: 'FAILED' }, { state: 'failed', refund_status: 'CANCELLED' }])
  t.same(failed.amounts, { captured: 1999, refunded: 500, reversed: 0 }, 'failed and cancelled refunds moved nothing')
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.same((await statusOf(shop, journey.id)).amounts, { captured: 1999, refunded: 500, reversed: 0 }, 'nor after a Sync lists them')
})
