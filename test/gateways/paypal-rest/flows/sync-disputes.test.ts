/*
 * paypal_rest's Sync reads disputes whose webhooks never came (issue 21): PayPal's "List disputes" by the
 * sale (https://developer.paypal.com/api/customer-disputes/v1/disputes-list), each new or changed dispute read
 * in full and recorded as the CUSTOMER.DISPUTE.* webhook records it, so the status and the events are the same.
 */
import t from 'tap'
import { Payment, Sync } from '../../../../plugins/core/index.ts'
import type { PaymentEvent } from '../../../../plugins/core/engine/index.ts'
import { GATEWAY, pay, readDone, saleOf, startShop, storedPayment, type Shop } from '../fixtures/shop.ts'

async function sync (shop: Shop, id: string): Promise<void> {
  await shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, id), (model) => new Sync(model))
}

async function versionOf (shop: Shop, id: string): Promise<number> {
  const version = shop.app.paywire.getStorage(Payment).versionOf(await storedPayment(shop, id))
  // A stored payment always has one; without it "unchanged" would prove nothing.
  if (version === undefined) throw new Error(`payment ${id} has no version`)
  return version
}

t.test('a dispute on the sale opened and won while PayPal\'s webhooks were lost: Sync suspends, then captures; Sync again writes nothing', async (t) => {
  const shop = await startShop(t)
  const { simulator } = shop.paypal
  const paid = await pay(shop)
  await simulator.webhooks.waitForIdle()
  // From here on PayPal's deliveries are held and never sent: only Sync can learn of the dispute.
  simulator.webhooks.pause()
  const heard: PaymentEvent[] = []
  shop.app.paywire.on('*', (event) => { heard.push(event as PaymentEvent) })
  const saleId = saleOf((await storedPayment(shop, paid.id)).details).id
  const dispute = simulator.disputes.open(saleId, { reason: 'CREDIT_NOT_PROCESSED', stage: 'CHARGEBACK' })
  const disputeId = dispute.dispute_id as string
  t.equal((await readDone(paid.done.doneUrl)).status, 'captured', 'the webhook never came: the shop does not know yet')

  await sync(shop, paid.id)
  t.equal((await readDone(paid.done.doneUrl)).status, 'suspended', 'the money is contested')
  t.match((await storedPayment(shop, paid.id)).details.paywire_disputes, [{ dispute_id: disputeId, status: 'OPEN', reason: 'CREDIT_NOT_PROCESSED', dispute_amount: { value: '19.99' } }])
  t.equal(simulator.requests({ method: 'GET', path: '/v1/customer/disputes' }).length, 1, 'PayPal\'s list, by the sale')
  t.equal(simulator.requests({ method: 'GET', path: `/v1/customer/disputes/${disputeId}` }).length, 1, 'the new dispute read in full')
  await shop.app.paywire.events.drain()
  t.match(heard.filter((event) => event.type === 'payment.disputed'), [{ payment: { id: paid.id }, status: 'suspended', dispute: { id: disputeId, state: 'open', amount: 1999 } }])

  simulator.disputes.resolve(disputeId, 'won')
  await sync(shop, paid.id)
  t.equal((await readDone(paid.done.doneUrl)).status, 'captured', 'won: the money stays')
  t.match((await storedPayment(shop, paid.id)).details.paywire_disputes, [{ dispute_id: disputeId, status: 'RESOLVED', outcome_code: 'RESOLVED_SELLER_FAVOUR' }])
  await shop.app.paywire.events.drain()
  t.match(heard.filter((event) => event.type === 'payment.dispute_resolved'), [{ status: 'captured', dispute: { id: disputeId, state: 'won' } }])

  const version = await versionOf(shop, paid.id)
  const events = heard.length
  await sync(shop, paid.id)
  t.equal(await versionOf(shop, paid.id), version, 'nothing new at PayPal: nothing written')
  t.equal(simulator.requests({ method: 'GET', path: `/v1/customer/disputes/${disputeId}` }).length, 2, 'a dispute already recorded is not read again')
  await shop.app.paywire.events.drain()
  t.equal(heard.length, events, 'no event')
})

t.test('a dispute lost while the webhooks were lost: Sync reads the payment refunded, the dispute lost', async (t) => {
  const shop = await startShop(t)
  const { simulator } = shop.paypal
  const paid = await pay(shop)
  await simulator.webhooks.waitForIdle()
  simulator.webhooks.pause()
  const dispute = simulator.disputes.open(saleOf((await storedPayment(shop, paid.id)).details).id)
  simulator.disputes.resolve(dispute.dispute_id as string, 'lost')
  await sync(shop, paid.id)
  t.equal((await readDone(paid.done.doneUrl)).status, 'refunded', 'lost: the money went back to the buyer')
  t.match((await storedPayment(shop, paid.id)).details.paywire_disputes, [{ dispute_id: dispute.dispute_id, status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR' }])
  const version = await versionOf(shop, paid.id)
  await sync(shop, paid.id)
  t.equal(await versionOf(shop, paid.id), version)
})
