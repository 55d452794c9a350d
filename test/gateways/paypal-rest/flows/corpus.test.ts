/*
 * Judged by PayPal's own documentation: paypal_rest (Payments v1) is fed PayPal's documented
 * sample answers and webhook events (test/gateways/paypal-shared/fixtures/corpus.ts, each naming
 * its page) by a plain loopback server that is not the simulator. Each scenario ends in the
 * status, amounts (minor units) and payment events PayPal's documentation implies.
 */
import t from 'tap'
import { Payment, Refund } from '../../../../plugins/core/index.ts'
import { IDS, sampleDispute, sampleDisputeResolved, sampleEvent, sampleRateLimited } from '../../paypal-shared/fixtures/corpus.ts'
import {
  samplePaymentCreated, samplePaymentExecuted, sampleReversalShown, sampleSale, sampleSaleRefund, sampleSaleRefundEvent, sampleSaleReversal
} from '../../paypal-shared/fixtures/corpus-v1.ts'
import { ok } from '../../paypal-shared/fixtures/corpus-server.ts'
import { comeBack, startCorpusShop, visit, type CorpusShop } from '../../paypal-shared/fixtures/corpus-shop.ts'
import type { Teardown } from '../fixtures/recorders.ts'

type Test = Teardown & { equal: (found: unknown, wanted: unknown, message: string) => unknown }

const PAYMENT = `/v1/payments/payment/${IDS.payment}`
const SALE = `/v1/payments/sale/${IDS.sale}`

interface Journey {
  shop: CorpusShop
  id: string
  captureUrl: string
  created: Record<string, any>
}

/** The buyer is sent to PayPal's approval_url (payment_create's sample). */
async function created (t: Test): Promise<Journey> {
  const shop = await startCorpusShop(t, 'paypal_rest')
  let payment: Record<string, any> | undefined
  shop.server.answers.set('POST /v1/payments/payment', (body) => {
    payment = samplePaymentCreated(body.transactions[0])
    return ok(payment, 201)
  })
  const { id, captureUrl } = await shop.checkout()
  const toPaypal = await visit(captureUrl)
  t.equal(toPaypal.location, 'https://www.sandbox.paypal.com/cgi-bin/webscr?cmd=_express-checkout&token=EC-3UY84950V5658831B', 'sent to the sample\'s approval_url')
  shop.server.answers.set(`GET ${PAYMENT}`, ok(payment))
  return { shop, id, captureUrl, created: payment as Record<string, any> }
}

const back = (journey: Journey): string => `${journey.captureUrl}?paymentId=${IDS.payment}&token=EC-3UY84950V5658831B&PayerID=${IDS.payer}`

/** The buyer approved: payment_execute's sample answer, its sale in `state`. */
async function executed (t: Test, state = 'completed'): Promise<Journey & { done: string }> {
  const journey = await created(t)
  paymentNow(journey, state)
  journey.shop.server.answers.set(`POST ${PAYMENT}/execute`, ok(samplePaymentExecuted(journey.created, sampleSale('100.00', 'USD', state))))
  return { ...journey, done: (await comeBack(back(journey))).status }
}

/** PayPal's view of the payment from now on: its sale in `state`, and the refunds it lists. */
function paymentNow (journey: Journey, state: string, refunds: Array<Record<string, any>> = []): void {
  const sale = sampleSale('100.00', 'USD', state)
  journey.shop.server.answers.set(`GET ${PAYMENT}`, ok(samplePaymentExecuted(journey.created, sale, refunds)))
  journey.shop.server.answers.set(`GET ${SALE}`, ok(sale))
}

/** A Refund by the back office, as the payment's only writer. */
async function refund (shop: CorpusShop, id: string, amount: number): Promise<void> {
  const payment = await shop.app.paywire.getStorage(Payment).find(id) as Payment
  await shop.app.paywire.executeExclusive(payment.gatewayName as string, payment, (model) => new Refund(model, { amount }))
}

let events = 0
const eventId = (): string => `WH-36G56432PK518391U-9HW18392D952891${String(++events).padStart(2, '0')}`
const saleEvent = (type: string, state: string, summary: string): Record<string, any> =>
  sampleEvent(type, 'sale', sampleSale('100.00', 'USD', state), summary, eventId(), null)

t.test('payment_execute with a completed sale: captured, 100.00 USD taken', async (t) => {
  const { shop, id, done } = await executed(t)
  t.equal(done, 'captured')
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('a 429 RATE_LIMIT_REACHED with Retry-After: execute is retried after it, with the same PayPal-Request-Id', async (t) => {
  const journey = await created(t)
  paymentNow(journey, 'completed')
  journey.shop.server.answers.set(`POST ${PAYMENT}/execute`, [
    { status: 429, body: sampleRateLimited(), headers: { 'retry-after': '1' } },
    ok(samplePaymentExecuted(journey.created, sampleSale('100.00', 'USD')))
  ])
  t.equal((await comeBack(back(journey))).status, 'captured', 'the buyer never sees the 429')
  const [first, second] = journey.shop.server.callsTo(`POST ${PAYMENT}/execute`)
  t.equal(second?.requestId, first?.requestId, 'the same request id: PayPal executes once')
  t.ok((second?.at ?? 0) - (first?.at ?? 0) >= 900, 'after the second PayPal asked for')
})

t.test('a pending sale (eCheck), then PAYMENT.SALE.COMPLETED: pending, then captured', async (t) => {
  const journey = await executed(t, 'pending')
  const { shop, id } = journey
  t.equal(journey.done, 'pending')
  t.match(await shop.read(id), { status: 'pending', amounts: { captured: 0 } })
  paymentNow(journey, 'completed')
  t.equal(await shop.deliver(saleEvent('PAYMENT.SALE.COMPLETED', 'completed', 'Payment completed for $ 100.0 USD')), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('a pending sale, then PAYMENT.SALE.DENIED: failed, nothing taken', async (t) => {
  const journey = await executed(t, 'pending')
  const { shop, id } = journey
  paymentNow(journey, 'denied')
  t.equal(await shop.deliver(saleEvent('PAYMENT.SALE.DENIED', 'denied', 'A $ 100.0 USD sale payment was denied')), 204)
  t.match(await shop.read(id), { status: 'failed', amounts: { captured: 0, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.failed'])
})

t.test('a refund PayPal answers pending: not counted until PAYMENT.SALE.REFUNDED and the payment list it completed', async (t) => {
  const journey = await executed(t)
  const { shop, id } = journey
  shop.server.answers.set(`POST ${SALE}/refund`, ok(sampleSaleRefund('10.99', 'USD', 'pending'), 201))
  paymentNow(journey, 'partially_refunded', [sampleSaleRefund('10.99', 'USD', 'pending')])
  await refund(shop, id, 1099)
  t.same(shop.server.callsTo(`POST ${SALE}/refund`).map((call) => call.body), [{ amount: { total: '10.99', currency: 'USD' } }])
  t.match(await shop.read(id), { amounts: { captured: 10000, refunded: 0, reversed: 0 }, details: { paywire_refunds: [{ id: IDS.saleRefund, state: 'processing', refund_state: 'pending' }] } })
  paymentNow(journey, 'partially_refunded', [sampleSaleRefund('10.99', 'USD')])
  t.equal(await shop.deliver(sampleEvent('PAYMENT.SALE.REFUNDED', 'sale', sampleSaleRefundEvent('10.99', 'USD'), 'A 10.99 USD sale payment was refunded', eventId(), null)), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 1099, reversed: 0 } })
  t.same(shop.events.at(-1), 'payment.refunded')
})

t.test('a refund PayPal answers failed: recorded, never counted, even when PayPal lists it later', async (t) => {
  const journey = await executed(t)
  const { shop, id } = journey
  shop.server.answers.set(`POST ${SALE}/refund`, ok(sampleSaleRefund('10.99', 'USD', 'failed'), 201))
  paymentNow(journey, 'completed', [sampleSaleRefund('10.99', 'USD', 'failed')])
  await refund(shop, id, 1099)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 }, details: { paywire_refunds: [{ id: IDS.saleRefund, state: 'failed', refund_state: 'failed' }] } })
  t.equal(await shop.deliver(saleEvent('PAYMENT.SALE.COMPLETED', 'completed', 'Payment completed for $ 100.0 USD')), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

const REVERSAL = `/v1/payments/refund/${IDS.reversal}`
const reversalEvent = (): Record<string, any> =>
  sampleEvent('PAYMENT.SALE.REVERSED', 'sale', sampleSaleReversal('100.00', 'USD'), 'A $ 100.0 USD sale payment was reversed', eventId(), null)

t.test('PAYMENT.SALE.REVERSED as PayPal sends it (no parent_payment, a negative amount): found through its self link, counted once, no longer captured', async (t) => {
  const journey = await executed(t)
  const { shop, id } = journey
  shop.server.answers.set(`GET ${REVERSAL}`, ok(sampleReversalShown('100.00', 'USD')))
  const event = reversalEvent()
  t.notOk('parent_payment' in event.resource, 'PayPal\'s sample names no payment')
  t.equal(await shop.deliver(event), 204)
  t.ok(shop.server.callsTo(`GET ${REVERSAL}`).length > 0, 'its payment found through the reversal\'s self link')
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 }, details: { paywire_reversals: [{ id: IDS.reversal, amount: { total: '100.00', currency: 'USD' } }] } })
  t.equal(await shop.deliver(event), 204, 'delivered again')
  t.match(await shop.read(id), { amounts: { reversed: 10000 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.reversed'])
})

t.test('CUSTOMER.DISPUTE.CREATED on the sale: suspended; RESOLVED won: captured; another lost: refunded, reversed', async (t) => {
  const journey = await executed(t)
  const { shop, id } = journey
  const dispute = sampleDispute(IDS.sale, '100.00', 'USD')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(dispute))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute, `A new dispute opened with Case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.ok(shop.server.callsTo(`GET ${SALE}`).length > 0, 'its payment found through the sale\'s parent_payment')
  t.match(await shop.read(id), { status: 'suspended', amounts: { captured: 10000, reversed: 0 }, details: { paywire_disputes: [{ dispute_id: IDS.dispute, status: 'OPEN' }] } })
  const won = sampleDisputeResolved(dispute, 'RESOLVED_SELLER_FAVOUR')
  shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(won))
  t.equal(await shop.deliver(sampleEvent('CUSTOMER.DISPUTE.RESOLVED', 'dispute', won, `A dispute was resolved with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 10000, refunded: 0, reversed: 0 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved'])

  const other = await executed(t)
  other.shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(dispute))
  t.equal(await other.shop.deliver(sampleEvent('CUSTOMER.DISPUTE.CREATED', 'dispute', dispute, `A new dispute opened with Case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  const lost = sampleDisputeResolved(dispute, 'RESOLVED_BUYER_FAVOUR')
  other.shop.server.answers.set(`GET /v1/customer/disputes/${IDS.dispute}`, ok(lost))
  t.equal(await other.shop.deliver(sampleEvent('CUSTOMER.DISPUTE.RESOLVED', 'dispute', lost, `A dispute was resolved with case # ${IDS.dispute}`, eventId(), '1.0')), 204)
  t.match(await other.shop.read(other.id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 } })
  other.shop.server.answers.set(`GET ${REVERSAL}`, ok(sampleReversalShown('100.00', 'USD')))
  t.equal(await other.shop.deliver(reversalEvent()), 204)
  t.match(await other.shop.read(other.id), { status: 'refunded', amounts: { captured: 10000, refunded: 0, reversed: 10000 } }, 'the same money: once')
  t.same(other.shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved', 'payment.reversed'])
})
