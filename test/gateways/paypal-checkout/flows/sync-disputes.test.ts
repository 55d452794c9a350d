/*
 * Sync reads disputes whose webhooks never came (issue 21): PayPal's "List disputes" by the capture
 * (https://developer.paypal.com/api/customer-disputes/v1/disputes-list), each new or changed dispute read
 * in full and recorded as the CUSTOMER.DISPUTE.* webhook records it, so the status and the events are the same.
 */
import t from 'tap'
import { Payment, Sync } from '../../../../plugins/core/index.ts'
import type { PaymentEvent } from '../../../../plugins/core/engine/index.ts'
import { captureOf, exclusive, pay, startCheckoutShop, statusOf, storedPayment, type CheckoutShop } from '../fixtures/shop.ts'
import { CapturingLogger } from '../../paypal-rest/fixtures/recorders.ts'

async function versionOf (shop: CheckoutShop, id: string): Promise<number> {
  const version = shop.app.paywire.getStorage(Payment).versionOf(await storedPayment(shop, id))
  // A stored payment always has one; without it "unchanged" would prove nothing.
  if (version === undefined) throw new Error(`payment ${id} has no version`)
  return version
}

t.test('a dispute opened and won while PayPal\'s webhooks were lost: Sync suspends, then captures; Sync again writes nothing', async (t) => {
  const shop = await startCheckoutShop(t)
  const { simulator } = shop.paypal
  const journey = await pay(shop)
  await simulator.webhooks.waitForIdle()
  // From here on PayPal's deliveries are held and never sent: only Sync can learn of the dispute.
  simulator.webhooks.pause()
  const heard: PaymentEvent[] = []
  shop.app.paywire.on('*', (event) => { heard.push(event as PaymentEvent) })
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id as string
  const dispute = simulator.disputes.open(captureId, { reason: 'UNAUTHORISED', amountMinor: 500 })
  const disputeId = dispute.dispute_id as string
  t.equal((await statusOf(shop, journey.id)).status, 'captured', 'the webhook never came: the shop does not know yet')

  await exclusive(shop, journey.id, (model) => new Sync(model))
  const open = await statusOf(shop, journey.id)
  t.equal(open.status, 'suspended', 'the money is contested')
  t.match(open.details.paywire_disputes, [{ dispute_id: disputeId, status: 'OPEN', reason: 'UNAUTHORISED', dispute_amount: { value: '5.00' } }])
  t.equal(simulator.requests({ method: 'GET', path: '/v1/customer/disputes' }).length, 1, 'PayPal\'s list, by the capture')
  t.equal(simulator.requests({ method: 'GET', path: `/v1/customer/disputes/${disputeId}` }).length, 1, 'the new dispute read in full')
  await shop.app.paywire.events.drain()
  t.match(heard.filter((event) => event.type === 'payment.disputed'), [{ payment: { id: journey.id }, status: 'suspended', dispute: { id: disputeId, state: 'open', amount: 500, reason: 'UNAUTHORISED' } }])

  simulator.disputes.update(disputeId, { status: 'UNDER_REVIEW' })
  simulator.disputes.resolve(disputeId, 'won')
  await exclusive(shop, journey.id, (model) => new Sync(model))
  const won = await statusOf(shop, journey.id)
  t.equal(won.status, 'captured', 'won: the money stays')
  t.same(won.amounts, { captured: 1999, refunded: 0, reversed: 0 })
  t.match(won.details.paywire_disputes, [{ dispute_id: disputeId, status: 'RESOLVED', outcome_code: 'RESOLVED_SELLER_FAVOUR' }])
  await shop.app.paywire.events.drain()
  t.match(heard.filter((event) => event.type === 'payment.dispute_resolved'), [{ status: 'captured', dispute: { id: disputeId, state: 'won' } }])

  const version = await versionOf(shop, journey.id)
  const events = heard.length
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.equal(await versionOf(shop, journey.id), version, 'nothing new at PayPal: nothing written')
  t.equal(simulator.requests({ method: 'GET', path: `/v1/customer/disputes/${disputeId}` }).length, 2, 'a dispute already recorded is not read again')
  await shop.app.paywire.events.drain()
  t.equal(heard.length, events, 'no event')
})

t.test('a dispute lost while the webhooks were lost: Sync reads it reversed, as PAYMENT.CAPTURE.REVERSED would; the late webhooks change nothing', async (t) => {
  const shop = await startCheckoutShop(t)
  const { simulator } = shop.paypal
  const journey = await pay(shop)
  await simulator.webhooks.waitForIdle()
  simulator.webhooks.pause()
  const heard: PaymentEvent[] = []
  shop.app.paywire.on('*', (event) => { heard.push(event as PaymentEvent) })
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id as string
  const dispute = simulator.disputes.open(captureId)
  simulator.disputes.resolve(dispute.dispute_id as string, 'lost')
  await exclusive(shop, journey.id, (model) => new Sync(model))
  const lost = await statusOf(shop, journey.id)
  t.equal(lost.status, 'refunded', 'lost: the money went back to the buyer')
  // PayPal lists the reversal among the capture's refunds: it is the dispute's money, not a refund.
  t.same(lost.amounts, { captured: 1999, refunded: 0, reversed: 1999 })
  t.match(lost.details.paywire_disputes, [{ dispute_id: dispute.dispute_id, status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR' }])
  await shop.app.paywire.events.drain()
  t.same(heard.map((event) => event.type), ['payment.reversed'], 'reversed, never refunded')
  const version = await versionOf(shop, journey.id)
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.equal(await versionOf(shop, journey.id), version)

  // The held CREATED, REVERSED and RESOLVED deliveries arrive at last: the same money, counted once.
  simulator.webhooks.resume()
  await simulator.webhooks.waitForIdle()
  const late = await statusOf(shop, journey.id)
  t.equal(late.status, 'refunded')
  t.same(late.amounts, { captured: 1999, refunded: 0, reversed: 1999 })
  await shop.app.paywire.events.drain()
  t.notOk(heard.some((event) => event.type === 'payment.refunded'), 'no refund event, whichever way PayPal\'s news came')
})

t.test('an app without the Disputes permission: PayPal\'s 403 fails neither Sync nor webhook; it is recorded, warned of once, and cleared when granted', async (t) => {
  const logger = new CapturingLogger()
  const shop = await startCheckoutShop(t, { logger })
  const { simulator } = shop.paypal
  const journey = await pay(shop)
  await simulator.webhooks.waitForIdle()
  simulator.disputes.setPermission(false)
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id as string
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.equal(simulator.requests({ method: 'GET', path: '/v1/customer/disputes' }).at(-1)?.statusCode, 403, 'PayPal refused the list')
  const refused = await statusOf(shop, journey.id)
  t.equal(refused.status, 'captured', 'the Sync did its payment half and went on')
  t.equal(refused.details.paywire_disputes_unreadable, 'NOT_AUTHORIZED', 'the record says disputes could not be read')
  const version = await versionOf(shop, journey.id)
  await exclusive(shop, journey.id, (model) => new Sync(model))
  t.equal(await versionOf(shop, journey.id), version, 'refused again: no news, nothing written')

  // The dispute's webhook still comes; PayPal refuses to show the dispute, so the signed delivery's own is kept.
  const dispute = simulator.disputes.open(captureId)
  await simulator.webhooks.waitForIdle()
  t.same(simulator.webhooks.deliveries().filter((delivery) => delivery.eventType === 'CUSTOMER.DISPUTE.CREATED').map((delivery) => delivery.status), ['delivered'])
  t.equal(simulator.requests({ method: 'GET', path: `/v1/customer/disputes/${String(dispute.dispute_id)}` }).at(-1)?.statusCode, 403)
  t.match(await statusOf(shop, journey.id), { status: 'suspended', details: { paywire_disputes: [{ dispute_id: dispute.dispute_id, status: 'OPEN' }] } })

  const warnings = logger.lines.filter((line) => line.level === 'warn' && String(line.message).includes('Disputes permission'))
  t.equal(warnings.length, 1, 'warned once, not on each Sync or delivery')
  t.match(warnings[0]?.fields, { paypal: { gateway: String, status: 403, name: 'NOT_AUTHORIZED' } })
  t.notOk(logger.text().includes(shop.client.clientSecret), 'no secret in the log')
  t.notMatch(logger.text(), /Bearer /, 'no token in the log')

  simulator.disputes.setPermission(true)
  await exclusive(shop, journey.id, (model) => new Sync(model))
  const granted = await statusOf(shop, journey.id)
  t.notOk('paywire_disputes_unreadable' in granted.details, 'granted: the mark is gone')
  t.match(granted, { status: 'suspended', details: { paywire_disputes: [{ dispute_id: dispute.dispute_id }] } })
})
