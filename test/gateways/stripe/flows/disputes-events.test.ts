import t from 'tap'
import type { OpenDispute } from 'paywire/stripe-simulator'
import { Refund, type AnyPaywireEvent, type PaymentEvent } from '../../../../plugins/core/index.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { exclusive, pay, startStripeShop, statusOf, type StripeShop } from '../fixtures/shop.ts'

function listen (shop: StripeShop): Array<PaymentEvent & { type: string }> {
  const events: Array<PaymentEvent & { type: string }> = []
  shop.app.paywire.onAny((event: AnyPaywireEvent) => { events.push(event as PaymentEvent) })
  return events
}

async function dispute (shop: StripeShop, id: string, options: OpenDispute = {}): Promise<string> {
  const { details } = await statusOf(shop, id)
  const opened = shop.stripe.simulator.disputes.open(details.latest_charge.id, options)
  await shop.stripe.simulator.webhooks.waitForIdle()
  return opened.id
}

t.test('a dispute won: suspended while open, captured again, with payment.disputed and payment.dispute_resolved', async (t) => {
  const shop = await startStripeShop(t)
  const events = listen(shop)
  const paid = await pay(shop, { totalAmount: 5000 })
  const disputeId = await dispute(shop, paid.id, { reason: 'product_not_received' })
  const open = await assertAgree(t, shop, paid.id, 'suspended')
  t.same(open.amounts, { captured: 5000, refunded: 0, reversed: 0 })
  shop.stripe.simulator.disputes.update(disputeId, { status: 'under_review', evidence: { uncategorized_text: 'Delivered.' } })
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.equal((await statusOf(shop, paid.id)).status, 'suspended', 'under review: still open')
  shop.stripe.simulator.disputes.close(disputeId, 'won')
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.same((await assertAgree(t, shop, paid.id, 'captured')).amounts, { captured: 5000, refunded: 0, reversed: 0 })
  await shop.app.paywire.events.drain()
  t.same(events.map((event) => event.type), ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved'])
  t.match(events[2], { status: 'suspended', previousStatus: 'captured', dispute: { id: disputeId, state: 'open', amount: 5000, reason: 'product_not_received' }, providerIds: { dispute: disputeId } })
  t.match(events[3], { status: 'captured', dispute: { id: disputeId, state: 'won' } })
})

t.test('a dispute lost after a partial refund: the money is reversed, the payment refunded, payment.reversed beside the resolution', async (t) => {
  const shop = await startStripeShop(t)
  const events = listen(shop)
  const paid = await pay(shop, { totalAmount: 5000 })
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 1000 }))
  const disputeId = await dispute(shop, paid.id, { amount: 4000 })
  t.equal((await statusOf(shop, paid.id)).status, 'suspended', 'a partly refunded payment may be disputed')
  shop.stripe.simulator.disputes.close(disputeId, 'lost')
  await shop.stripe.simulator.webhooks.waitForIdle()
  const lost = await assertAgree(t, shop, paid.id, 'refunded')
  t.same(lost.amounts, { captured: 5000, refunded: 1000, reversed: 4000 })
  await shop.app.paywire.events.drain()
  t.same(events.map((event) => event.type), ['payment.pending', 'payment.captured', 'payment.refunded', 'payment.disputed', 'payment.dispute_resolved', 'payment.reversed'])
  t.match(events[4], { dispute: { id: disputeId, state: 'lost', amount: 4000 }, amounts: { captured: 5000, refunded: 1000, reversed: 4000 } })
  // Redelivered, every dispute event changes nothing more.
  for (const event of shop.stripe.simulator.events().filter((entry) => entry.type.startsWith('charge.dispute.'))) shop.stripe.simulator.webhooks.redeliver(event.id)
  await shop.stripe.simulator.webhooks.waitForIdle()
  await shop.app.paywire.events.drain()
  t.equal(events.length, 6)
})

t.test('an inquiry closed without a chargeback reads won; Stripe\'s refusal to refund a disputed charge is a provider error naming Stripe\'s code', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 2000 })
  const chargeback = await dispute(shop, paid.id)
  const refused = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 100 })).catch((error: Error) => error)
  t.match(refused, { code: 'PAYWIRE_ERR_PROVIDER', statusCode: 502, providerCode: 'charge_disputed', provider: 'Stripe', debugId: /^req_/ })
  t.match((await statusOf(shop, paid.id)).details.paywire_refunds, [{ state: 'refused', error: { code: 'charge_disputed', refused: true, request_id: /^req_/ } }])
  shop.stripe.simulator.disputes.close(chargeback, 'won')
  await shop.stripe.simulator.webhooks.waitForIdle()

  const other = await pay(shop, { totalAmount: 2000 })
  const inquiry = await dispute(shop, other.id, { inquiry: true })
  t.equal((await statusOf(shop, other.id)).status, 'suspended')
  shop.stripe.simulator.disputes.close(inquiry, 'lost')
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.match((await assertAgree(t, shop, other.id, 'captured')).details.disputes, [{ status: 'warning_closed' }])
})
