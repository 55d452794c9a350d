import t from 'tap'
import { Payment, Sync, type UnmatchedNotification } from '../../../../plugins/core/index.ts'
import { untilDelivered } from '../../paypal-rest/fixtures/integrity.ts'
import type { Shop } from '../../paypal-rest/fixtures/shop.ts'
import {
  GATEWAY, callPaypal, captureOf, checkout, comeBack, decide, exclusive, pay, startCheckoutShop, startJourney, statusOf, visit, type CheckoutShop
} from '../fixtures/shop.ts'

function deliveredStatuses (shop: CheckoutShop, eventType: string): Array<number | undefined> {
  return shop.paypal.simulator.webhooks.deliveries().filter((delivery) => delivery.eventType === eventType)
    .flatMap((delivery) => delivery.attempts.map((attempt) => attempt.statusCode))
}

t.test('CHECKOUT.ORDER.APPROVED, PAYMENT.CAPTURE.COMPLETED and CHECKOUT.ORDER.COMPLETED are verified, tied to the payment and acknowledged', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  await decide(journey.approvalUrl, 'approve')
  await untilDelivered(shop as unknown as Shop, 'CHECKOUT.ORDER.APPROVED')
  const approved = await statusOf(shop, journey.id)
  t.equal(approved.details.status, 'APPROVED', 'the webhook brought PayPal\'s order')
  t.equal(approved.status, 'pending')
  // The buyer closed the tab after approving: the capture URL (a reload) captures what was approved.
  t.equal((await comeBack(journey.captureUrl)).status, 'captured')
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.COMPLETED')
  await untilDelivered(shop as unknown as Shop, 'CHECKOUT.ORDER.COMPLETED')
  t.same(deliveredStatuses(shop, 'CHECKOUT.ORDER.APPROVED'), [204])
  // Both come at once: one may meet the other's claim on the payment (409, busy) and is acknowledged on PayPal's retry.
  for (const eventType of ['PAYMENT.CAPTURE.COMPLETED', 'CHECKOUT.ORDER.COMPLETED']) {
    const statuses = deliveredStatuses(shop, eventType)
    t.equal(statuses.at(-1), 204, `${eventType} acknowledged`)
    t.ok(statuses.slice(0, -1).every((status) => status === 409), `${eventType}: at most told busy before`)
  }
  const captured = await statusOf(shop, journey.id)
  t.equal(captured.details.paywire_webhook_events.length, 3)
  t.equal(captured.status, 'captured')
})

t.test('PAYMENT.CAPTURE.PENDING then DENIED: pending, then failed', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  t.equal(journey.status, 'pending')
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.PENDING')
  shop.paypal.simulator.orders.settleCapture(captureOf((await statusOf(shop, journey.id)).details).id, 'DECLINED')
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.DENIED')
  t.equal((await statusOf(shop, journey.id)).status, 'failed')
})

t.test('PAYMENT.CAPTURE.REFUNDED (refunded in PayPal\'s dashboard) and REVERSED (a chargeback): amounts follow', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop)
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id
  const refunded = await callPaypal(shop, 'POST', `/v2/payments/captures/${captureId}/refund`, { amount: { value: '4.99', currency_code: 'EUR' } })
  t.equal(refunded.status, 201)
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.REFUNDED')
  t.same((await statusOf(shop, journey.id)).amounts, { captured: 1999, refunded: 499, reversed: 0 })

  shop.paypal.simulator.orders.reverseCapture(captureId)
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.REVERSED')
  const reversed = await statusOf(shop, journey.id)
  t.equal(reversed.status, 'refunded')
  t.same(reversed.amounts, { captured: 1999, refunded: 499, reversed: 1500 })
  t.match(reversed.details.paywire_reversals, [{ amount: { value: '15.00', currency_code: 'EUR' } }])
})

t.test('PAYMENT.AUTHORIZATION.CREATED is acknowledged; a redelivery changes nothing and costs no PayPal call', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'authorize')
  const [delivery] = await untilDelivered(shop as unknown as Shop, 'PAYMENT.AUTHORIZATION.CREATED')
  t.same(delivery?.statusCodes, [204])
  const lookups = () => shop.paypal.simulator.requests({ method: 'GET', path: '/v2/checkout/orders/*' }).length
  const before = lookups()
  const [again] = await shop.paypal.simulator.webhooks.redeliver(delivery?.eventId as string)
  t.same(again?.attempts.map((attempt) => attempt.statusCode), [204])
  t.equal(lookups(), before, 'a seen event is not looked up again')
  t.equal((await statusOf(shop, journey.id)).status, 'authorized')
})

t.test('an order whose create answer was lost is found by its custom id when PayPal says it was approved', async (t) => {
  const shop = await startCheckoutShop(t)
  const { id, captureUrl } = await checkout(shop)
  const payment = await shop.app.paywire.getStorage(Payment).find(id) as Payment
  const created = await callPaypal(shop, 'POST', '/v2/checkout/orders', {
    intent: 'CAPTURE',
    purchase_units: [{ amount: { currency_code: 'EUR', value: '19.99' }, custom_id: payment.id }],
    payment_source: { paypal: { experience_context: { return_url: captureUrl, cancel_url: `${captureUrl}?cancelled=1` } } }
  })
  shop.paypal.simulator.orders.approve(created.json.id)
  await untilDelivered(shop as unknown as Shop, 'CHECKOUT.ORDER.APPROVED')
  t.match((await statusOf(shop, id)).details, { id: created.json.id, status: 'APPROVED' })
  t.equal((await comeBack(captureUrl)).status, 'captured')
  t.equal(shop.paypal.simulator.orders.counters().ordersCreated, 1, 'no second order')
})

t.test('a forged signature is refused (400); an event about no known payment is money.unmatched and acknowledged', async (t) => {
  const shop = await startCheckoutShop(t)
  const unmatched: UnmatchedNotification[] = []
  shop.app.paywire.on('money.unmatched', (notification) => { unmatched.push(notification) })
  const body = JSON.stringify({ id: 'WH-1', event_type: 'PAYMENT.CAPTURE.COMPLETED', resource_type: 'capture', resource: { id: 'CAP1', amount: { value: '1.00', currency_code: 'EUR' }, supplementary_data: { related_ids: { order_id: 'ORDER1' } } } })
  const headers = await shop.paypal.simulator.webhooks.sign(body, { webhookId: shop.webhookId })
  const url = `${shop.origin}/payment/notify/unsafe/${GATEWAY}`
  t.equal((await visit(url, { body, headers: { 'content-type': 'application/json', ...headers, 'paypal-transmission-sig': 'AAAA' } })).status, 400)
  t.equal((await visit(url, { body, headers: { 'content-type': 'application/json', ...headers } })).status, 204)
  t.match(unmatched, [{ gateway: GATEWAY, provider: 'PayPal', eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceIds: { order: 'ORDER1', capture: 'CAP1' }, amount: { value: '1.00', currency: 'EUR' } }])
  t.equal((await visit(url, { body: 'not json', headers: { 'content-type': 'application/json' } })).status, 400)
})

t.test('Sync: GET the order and its captures; a capture settled while webhooks were lost reads captured', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  await untilDelivered(shop as unknown as Shop, 'PAYMENT.CAPTURE.PENDING')
  shop.paypal.simulator.webhooks.pause()
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id
  shop.paypal.simulator.orders.settleCapture(captureId, 'COMPLETED')
  t.equal((await statusOf(shop, journey.id)).status, 'pending')
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.equal((await statusOf(shop, journey.id)).status, 'captured')
  t.same(shop.paypal.simulator.requests({ method: 'GET', path: `/v2/payments/captures/${captureId}` }).length, 1, 'the capture was looked at')
  shop.paypal.simulator.webhooks.resume()

  const fresh = await checkout(shop)
  await exclusive(shop, fresh.id, (model) => new Sync(model))
  t.equal((await statusOf(shop, fresh.id)).status, 'new', 'nothing at PayPal yet: nothing to sync')
})

t.test('CUSTOMER.DISPUTE.*: the payment is suspended while the dispute is open; won gives it back, lost reverses it', async (t) => {
  const shop = await startCheckoutShop(t)
  const won = await pay(shop)
  const wonCapture = captureOf((await statusOf(shop, won.id)).details).id
  const dispute = shop.paypal.simulator.disputes.open(wonCapture, { reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' })
  await untilDelivered(shop as unknown as Shop, 'CUSTOMER.DISPUTE.CREATED')
  const open = await statusOf(shop, won.id)
  t.equal(open.status, 'suspended', 'the money is contested')
  t.match(open.details.paywire_disputes, [{ dispute_id: dispute.dispute_id, status: String, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' }])
  shop.paypal.simulator.disputes.resolve(dispute.dispute_id as string, 'won')
  await untilDelivered(shop as unknown as Shop, 'CUSTOMER.DISPUTE.RESOLVED')
  const kept = await statusOf(shop, won.id)
  t.equal(kept.status, 'captured', 'won: the money stays')
  t.same(kept.amounts, { captured: 1999, refunded: 0, reversed: 0 })

  const lost = await pay(shop)
  const lostCapture = captureOf((await statusOf(shop, lost.id)).details).id
  const second = shop.paypal.simulator.disputes.open(lostCapture)
  await untilDelivered(shop as unknown as Shop, 'CUSTOMER.DISPUTE.CREATED', 2)
  t.equal((await statusOf(shop, lost.id)).status, 'suspended')
  shop.paypal.simulator.disputes.resolve(second.dispute_id as string, 'lost')
  await untilDelivered(shop as unknown as Shop, 'CUSTOMER.DISPUTE.RESOLVED', 2)
  const taken = await statusOf(shop, lost.id)
  t.equal(taken.status, 'refunded', 'lost: the money went back to the buyer')
  t.same(taken.amounts, { captured: 1999, refunded: 0, reversed: 1999 })
})
