import t from 'tap'
import type { AnyPaywireEvent } from '../../../../../plugins/core/index.ts'
import { pay, startJourney, startStripeShop, statusOf, submit } from '../../../../gateways/stripe/fixtures/shop.ts'

/*
 * The sweeper against the Stripe simulator, without webhooks (none subscribed: every one is
 * lost), on the simulator's clock: what happened at Stripe reaches Paywire through the sweep only.
 */

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

t.test('a buyer who paid at Stripe and never came back, and one who left the page: captured and expired, as Stripe says', async (t) => {
  const shop = await startStripeShop(t, { webhooks: false })
  const clock = shop.stripe.simulator.clock
  shop.app.paywire.reconcile.configure({ now: () => clock.now(), perSecond: 1000 })
  const events: AnyPaywireEvent[] = []
  shop.app.paywire.onAny((event) => { events.push(event) })
  const paid = await startJourney(shop)
  const left = await startJourney(shop)
  const page = await submit(paid.sessionUrl)
  t.equal(page.status, 303, 'paid: Stripe sends the buyer back (who closes the tab instead)')
  t.equal((await statusOf(shop, paid.id)).status, 'pending', 'Paywire has not heard of it')

  clock.advance(16 * MINUTE)
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { due: 2, synced: 2, changed: 1 })
  t.equal((await statusOf(shop, paid.id)).status, 'captured')
  t.equal((await statusOf(shop, left.id)).status, 'pending', 'the other session is still open at Stripe')

  clock.advance(DAY)
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { due: 1, synced: 1, changed: 1 })
  t.equal((await statusOf(shop, left.id)).status, 'expired', 'Stripe expired the session after 24 hours')
  await shop.app.paywire.events.drain()
  t.same(events.filter((event) => event.type !== 'payment.pending').map((event) => `${event.type} ${'payment' in event ? event.payment.id : ''}`).sort(), [`payment.captured ${paid.id}`, `payment.expired ${left.id}`].sort())
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { due: 0 })
})

t.test('a Stripe authorization: payment.authorization_expiring a day before capture_before, once', async (t) => {
  const shop = await startStripeShop(t, { webhooks: false })
  const clock = shop.stripe.simulator.clock
  shop.app.paywire.reconcile.configure({ now: () => clock.now(), perSecond: 1000, backoffMs: MINUTE, backoffMaxMs: MINUTE })
  const events: AnyPaywireEvent[] = []
  shop.app.paywire.on('payment.authorization_expiring', (event) => { events.push(event) })
  const journey = await pay(shop, {}, 'authorize')
  t.equal(journey.status, 'authorized')
  const { details } = await statusOf(shop, journey.id)
  const expiresAt = new Date(details.latest_charge.capture_before * 1000).toISOString()
  t.equal(Date.parse(expiresAt) - details.created * 1000, 7 * DAY, 'Stripe holds it 7 days')

  clock.advance(5 * DAY)
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { due: 0 })
  clock.advance(DAY + MINUTE)
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { due: 1, synced: 1, authorizationsExpiring: 1 })
  clock.advance(2 * MINUTE)
  t.match(await shop.app.paywire.reconcile.sweepOnce(), { synced: 1, authorizationsExpiring: 0 })
  await shop.app.paywire.events.drain()
  t.match(events, [{ type: 'payment.authorization_expiring', payment: { id: journey.id }, expiresAt, amounts: { total: 1999, currency: 'EUR' } }])
  t.equal(events.length, 1)
})
