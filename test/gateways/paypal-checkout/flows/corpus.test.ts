/*
 * Judged by PayPal's own documentation: paypal_checkout (Orders v2) is fed PayPal's documented
 * sample answers and webhook events (test/gateways/paypal-shared/fixtures/corpus.ts, each naming
 * its page) by a plain loopback server that is not the simulator. Each scenario ends in the
 * status, amounts (minor units) and payment events PayPal's documentation implies.
 */
import t from 'tap'
import { Payment, Refund } from '../../../../plugins/core/index.ts'
import {
  IDS, sampleCapture, sampleCaptureEvent, sampleDispute, sampleDisputeResolved, sampleEvent, sampleInstrumentDeclined, sampleOrderApproved, sampleOrderCaptured,
  sampleOrderCreated, sampleRateLimited, sampleRefund
} from '../../paypal-shared/fixtures/corpus.ts'
import { ok } from '../../paypal-shared/fixtures/corpus-server.ts'
import type { Teardown } from '../../paypal-rest/fixtures/recorders.ts'
import { comeBack, startCorpusShop, visit, type CorpusShop } from '../../paypal-shared/fixtures/corpus-shop.ts'

type Test = Teardown & { equal: (found: unknown, wanted: unknown, message: string) => unknown }

const ORDER = `/v2/checkout/orders/${IDS.order}`
const CAPTURE = `/v2/payments/captures/${IDS.capture}`

interface Journey {
  shop: CorpusShop
  id: string
  captureUrl: string
  approved: Record<string, any>
  customId: string
}

/** The buyer is sent to PayPal (orders_create's sample) and approves: the order reads APPROVED. */
async function approved (t: Test): Promise<Journey> {
  const shop = await startCorpusShop(t, 'paypal_checkout')
  let created: Record<string, any> | undefined
  shop.server.answers.set('POST /v2/checkout/orders', (body) => {
    created = sampleOrderCreated(body.purchase_units[0])
    return ok(created)
  })
  const { id, captureUrl } = await shop.checkout()
  const toPaypal = await visit(captureUrl)
  t.equal(toPaypal.location, `https://www.paypal.com/checkoutnow?token=${IDS.order}`, 'sent to the sample\'s payer-action link')
  const approvedOrder = sampleOrderApproved(created as Record<string, any>)
  shop.server.answers.set(`GET ${ORDER}`, ok(approvedOrder))
  return { shop, id, captureUrl, approved: approvedOrder, customId: approvedOrder.purchase_units[0].custom_id }
}

/** PayPal answers the capture with orders_capture's sample, its capture in `status`; the buyer is back at the shop. */
async function captured (t: Test, status = 'COMPLETED'): Promise<Journey & { done: string }> {
  const journey = await approved(t)
  const capture = sampleCapture('100.00', 'USD', journey.customId, status)
  const order = sampleOrderCaptured(journey.approved, [capture])
  journey.shop.server.answers.set(`POST ${ORDER}/capture`, ok(order, 201))
  journey.shop.server.answers.set(`GET ${ORDER}`, ok(order))
  journey.shop.server.answers.set(`GET ${CAPTURE}`, ok(capture))
  const done = await comeBack(`${journey.captureUrl}?token=${IDS.order}&PayerID=${IDS.payer}`)
  return { ...journey, done: done.status }
}

/** PayPal's view of the order from now on: its capture in `status`, and the refunds it lists. */
function orderNow (journey: Journey, status: string, refunds?: Array<Record<string, any>>): void {
  const capture = sampleCapture('100.00', 'USD', journey.customId, status)
  const order = sampleOrderCaptured(journey.approved, [capture], refunds)
  journey.shop.server.answers.set(`GET ${ORDER}`, ok(order))
  journey.shop.server.answers.set(`GET ${CAPTURE}`, ok(capture))
}

/** A Refund by the back office, as the payment's only writer. */
async function refund (shop: CorpusShop, id: string, amount: number): Promise<void> {
  const payment = await shop.app.paywire.getStorage(Payment).find(id) as Payment
  await shop.app.paywire.executeExclusive(payment.gatewayName as string, payment, (model) => new Refund(model, { amount }))
}

let events = 0
const eventId = (): string => `WH-2CL46544TB770421K-5VB92446WP73458${String(++events).padStart(2, '0')}`

t.test('orders_capture COMPLETED: captured, 100.00 USD taken', async (t) => {
  const { shop, id, done } = await captured(t)
  t.equal(done, 'captured')
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('a 429 RATE_LIMIT_REACHED with Retry-After: the capture is retried after it, with the same PayPal-Request-Id', async (t) => {
  const journey = await approved(t)
  const order = sampleOrderCaptured(journey.approved, [sampleCapture('100.00', 'USD', journey.customId)])
  journey.shop.server.answers.set(`POST ${ORDER}/capture`, [{ status: 429, body: sampleRateLimited(), headers: { 'retry-after': '1' } }, ok(order, 201)])
  journey.shop.server.answers.set(`GET ${ORDER}`, ok(order))
  t.equal((await comeBack(`${journey.captureUrl}?token=${IDS.order}&PayerID=${IDS.payer}`)).status, 'captured', 'the buyer never sees the 429')
  const [first, second] = journey.shop.server.callsTo(`POST ${ORDER}/capture`)
  t.ok(first !== undefined && second !== undefined)
  t.equal(second?.requestId, first?.requestId, 'the same request id: PayPal captures once')
  t.ok((second?.at ?? 0) - (first?.at ?? 0) >= 900, 'after the second PayPal asked for')
  t.match(await journey.shop.read(journey.id), { status: 'captured', amounts: { captured: 10000 } })
})

t.test('a 422 INSTRUMENT_DECLINED with its redirect link: the buyer is sent back to PayPal, nothing captured', async (t) => {
  const journey = await approved(t)
  journey.shop.server.answers.set(`POST ${ORDER}/capture`, { status: 422, body: sampleInstrumentDeclined() })
  const back = await visit(`${journey.captureUrl}?token=${IDS.order}&PayerID=${IDS.payer}`)
  t.equal(back.status, 302)
  t.equal(back.location, `https://www.paypal.com/checkoutnow?token=${IDS.order}`, 'the 422\'s redirect link')
  t.match(await journey.shop.read(journey.id), { status: 'pending', amounts: undefined, details: { error: { issue: 'INSTRUMENT_DECLINED' } } })
  t.same(journey.shop.events, ['payment.pending'])
})

t.test('capture PENDING (eCheck), then PAYMENT.CAPTURE.COMPLETED: pending, then captured', async (t) => {
  const journey = await captured(t, 'PENDING')
  const { shop, id } = journey
  t.equal(journey.done, 'pending')
  t.match(await shop.read(id), { status: 'pending', amounts: { captured: 0, refunded: 0, reversed: 0 } })
  orderNow(journey, 'COMPLETED')
  const capture = sampleCaptureEvent(journey.customId)
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.COMPLETED', 'capture', capture, 'Payment completed for $ 100.0 USD', eventId())), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('capture PENDING, then PAYMENT.CAPTURE.DENIED (no custom_id, named by its up link): failed, nothing taken', async (t) => {
  const journey = await captured(t, 'PENDING')
  const { shop, id } = journey
  orderNow(journey, 'DECLINED')
  const capture = sampleCaptureEvent(undefined, 'DECLINED')
  delete capture.supplementary_data
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.DENIED', 'capture', capture, 'Payment denied for $ 100.0 USD', eventId())), 204)
  t.match(await shop.read(id), { status: 'failed', amounts: { captured: 0, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.failed'])
})

t.test('orders_capture with a DECLINED capture, then PAYMENT.CAPTURE.DECLINED: failed, nothing taken', async (t) => {
  const journey = await captured(t, 'DECLINED')
  const { shop, id } = journey
  t.equal(journey.done, 'failed')
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.DECLINED', 'capture', sampleCaptureEvent(journey.customId, 'DECLINED'), 'Payment declined for $ 100.0 USD', eventId())), 204)
  t.match(await shop.read(id), { status: 'failed', amounts: { captured: 0, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.failed'])
})

t.test('a refund PayPal answers PENDING (eCheck): not counted until PAYMENT.CAPTURE.REFUNDED says COMPLETED', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  shop.server.answers.set(`POST ${CAPTURE}/refund`, ok(sampleRefund('10.99', 'USD', 'PENDING'), 201))
  orderNow(journey, 'COMPLETED', [sampleRefund('10.99', 'USD', 'PENDING')])
  await refund(shop, id, 1099)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 }, details: { paywire_refunds: [{ id: IDS.refund, state: 'processing', refund_status: 'PENDING' }] } })
  t.same(shop.server.callsTo(`POST ${CAPTURE}/refund`).map((call) => call.body), [{ amount: { value: '10.99', currency_code: 'USD' }, custom_id: journey.customId }])

  orderNow(journey, 'PARTIALLY_REFUNDED', [sampleRefund('10.99', 'USD')])
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.REFUNDED', 'refund', sampleRefund('10.99', 'USD'), 'A $ 10.99 USD capture payment was refunded', eventId())), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 1099, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.refunded'])
})

t.test('a refund PayPal answers FAILED: recorded, never counted, even when PayPal lists it later', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  shop.server.answers.set(`POST ${CAPTURE}/refund`, ok(sampleRefund('10.99', 'USD', 'FAILED'), 201))
  orderNow(journey, 'COMPLETED', [sampleRefund('10.99', 'USD', 'FAILED')])
  await refund(shop, id, 1099)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 }, details: { paywire_refunds: [{ id: IDS.refund, state: 'failed', refund_status: 'FAILED' }] } })
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.COMPLETED', 'capture', sampleCaptureEvent(journey.customId), 'Payment completed for $ 100.0 USD', eventId())), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('a refund PayPal answers COMPLETED: counted at once', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  shop.server.answers.set(`POST ${CAPTURE}/refund`, ok(sampleRefund('10.99', 'USD'), 201))
  orderNow(journey, 'PARTIALLY_REFUNDED', [sampleRefund('10.99', 'USD')])
  await refund(shop, id, 1099)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 1099, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.refunded'])
})

t.test('PAYMENT.CAPTURE.REVERSED (a refund resource naming only its capture): the reversal counted once, not as a refund', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  const reversal = sampleRefund('100.00', 'USD', 'COMPLETED', '0HY6370484018283C')
  orderNow(journey, 'REFUNDED', [reversal])
  const event = sampleEvent('PAYMENT.CAPTURE.REVERSED', 'refund', reversal, 'A $ 100.00 USD capture payment was reversed', eventId())
  t.equal(await shop.deliver(event), 204)
  t.ok(shop.server.callsTo(`GET ${CAPTURE}`).length > 0, 'its order found through the capture')
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 } })
  t.equal(await shop.deliver(event), 204, 'delivered again')
  t.match(await shop.read(id), { amounts: { reversed: 10000 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.reversed'])
})

t.test('CUSTOMER.DISPUTE.CREATED: suspended; UPDATED: still suspended; RESOLVED in the seller\'s favour: captured again', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  const dispute = sampleDispute(IDS.capture, '100.00', 'USD')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(dispute))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute, `A new dispute opened with Case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'suspended', amounts: { captured: 10000, refunded: 0, reversed: 0 }, details: { paywire_disputes: [{ dispute_id: IDS.dispute, status: 'OPEN', reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' }] } })
  // adjusted: the dispute moved on (status UNDER_REVIEW, one of the dispute's documented statuses), a later update_time.
  const updated = { ...dispute, status: 'UNDER_REVIEW', update_time: '2018-06-25T13:35:44.000Z' }
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(updated))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.UPDATED', 'dispute', updated, `A dispute was updated with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'suspended', details: { paywire_disputes: [{ status: 'UNDER_REVIEW' }] } }, 'still contested')
  const resolved = sampleDisputeResolved(dispute, 'RESOLVED_SELLER_FAVOUR')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(resolved))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.RESOLVED', 'dispute', resolved, `A dispute was resolved with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved'])
})

t.test('CUSTOMER.DISPUTE.RESOLVED in the buyer\'s favour, then PayPal\'s PAYMENT.CAPTURE.REVERSED: reversed when the first arrives, once', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  const dispute = sampleDispute(IDS.capture, '100.00', 'USD')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(dispute))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute, `A new dispute opened with Case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  const lost = sampleDisputeResolved(dispute, 'RESOLVED_BUYER_FAVOUR')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(lost))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.RESOLVED', 'dispute', lost, `A dispute was resolved with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 } }, 'the outcome\'s amount_refunded went back to the buyer')
  const reversal = sampleRefund('100.00', 'USD', 'COMPLETED', '0HY6370484018283C')
  orderNow(journey, 'REFUNDED', [reversal])
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.REVERSED', 'refund', reversal, 'A $ 100.00 USD capture payment was reversed', eventId())), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 }, details: { paywire_disputes: [{ status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR' }] } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved', 'payment.reversed'])
})

t.test('PAYMENT.CAPTURE.REVERSED first, then CUSTOMER.DISPUTE.RESOLVED lost: the same money, reversed once', async (t) => {
  const journey = await captured(t)
  const { shop, id } = journey
  const dispute = sampleDispute(IDS.capture, '100.00', 'USD')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(dispute))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute, `A new dispute opened with Case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  const reversal = sampleRefund('100.00', 'USD', 'COMPLETED', '0HY6370484018283C')
  orderNow(journey, 'REFUNDED', [reversal])
  t.equal(await shop.deliver(sampleEvent('PAYMENT.CAPTURE.REVERSED', 'refund', reversal, 'A $ 100.00 USD capture payment was reversed', eventId())), 204)
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(sampleDisputeResolved(dispute, 'RESOLVED_BUYER_FAVOUR')))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.RESOLVED', 'dispute', sampleDisputeResolved(dispute, 'RESOLVED_BUYER_FAVOUR'), `A dispute was resolved with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.reversed', 'payment.dispute_resolved'])
})
