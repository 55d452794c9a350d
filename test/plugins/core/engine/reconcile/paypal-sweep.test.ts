import t, { type Test } from 'tap'
import { Payment, Refund, type AnyPaywireEvent, type SweepReport } from '../../../../../plugins/core/index.ts'
import Fastify from 'fastify'
import { paypalCheckoutGateway } from '../../../../../gateways/paypal-checkout/index.ts'
import { MemoryStorageBackend, paywire, type ModelClass, type Storage, type StorageOptions, type TokenStorage } from '../../../../../plugins/core/index.ts'
import { GATEWAY, captureOf, pay, startCheckoutShop, statusOf, storedPayment, type CheckoutShop } from '../../../../gateways/paypal-checkout/fixtures/shop.ts'

/*
 * The sweeper against the PayPal simulator (Orders v2), on the memory backend: each test's
 * webhooks are held back (pause), so only the sweep can tell Paywire what PayPal did. The sweep
 * runs on the simulator's clock, which the tests move instead of waiting.
 */

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

interface Sweeping {
  shop: CheckoutShop
  events: AnyPaywireEvent[]
  advance: (ms: number) => void
  sweep: () => Promise<SweepReport>
  ordersRead: () => number
}

async function sweepingShop (t: Test, backend?: MemoryStorageBackend): Promise<Sweeping> {
  const shop = await startCheckoutShop(t, { backend })
  const clock = shop.paypal.simulator.clock
  // Syncs are not paced here: the rate limit has its own test.
  shop.app.paywire.reconcile.configure({ now: () => clock.now(), perSecond: 1000, backoffMs: 10 * MINUTE, backoffMaxMs: 40 * MINUTE })
  const events: AnyPaywireEvent[] = []
  shop.app.paywire.onAny((event) => { events.push(event) })
  return {
    shop,
    events,
    advance: (ms) => { clock.advance(ms) },
    sweep: async () => {
      const report = await shop.app.paywire.reconcile.sweepOnce()
      await shop.app.paywire.events.drain()
      return report
    },
    ordersRead: () => shop.paypal.simulator.requests({ method: 'GET', path: '/v2/checkout/orders/*' }).length
  }
}

t.test('a capture PayPal settles while its webhook never comes: the sweep after pendingAfterMs finds it captured, once', async (t) => {
  const { shop, events, advance, sweep, ordersRead } = await sweepingShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  t.equal(journey.status, 'pending', 'an eCheck: PayPal\'s capture is PENDING')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  shop.paypal.simulator.orders.settleCapture(captureOf((await storedPayment(shop, journey.id)).details).id, 'COMPLETED')

  const early = await sweep()
  t.match(early, { leased: true, due: 0, synced: 0 }, 'pending for less than 15 minutes: not due yet')
  advance(16 * MINUTE)
  const before = ordersRead()
  t.match(await sweep(), { due: 1, synced: 1, changed: 1, failed: 0 })
  t.equal(ordersRead() - before, 1, 'one Sync: one read of the order')
  t.equal((await statusOf(shop, journey.id)).status, 'captured', 'as PayPal says')
  t.match(events.filter((event) => event.type === 'payment.captured'), [{ payment: { id: journey.id }, previousStatus: 'pending' }])
  t.match(await sweep(), { due: 0, synced: 0 }, 'captured: nothing left to learn')
})

t.test('a refund left pending at PayPal, then completed there without a webhook: found by the sweep', async (t) => {
  const { shop, events, advance, sweep } = await sweepingShop(t)
  const journey = await pay(shop)
  shop.paypal.simulator.orders.queueRefundOutcome('PENDING')
  await shop.app.paywire.executeExclusive('paypal-v2', await storedPayment(shop, journey.id), (model) => new Refund(model, { amount: 500 }))
  const pending = await statusOf(shop, journey.id)
  t.same(pending.amounts, { captured: 1999, refunded: 0, reversed: 0 }, 'a pending refund moved nothing yet')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  const refundId = pending.details.paywire_refunds[0].id as string

  t.match(await sweep(), { due: 1, synced: 1 }, 'a pending refund is due at once (its first Sync stores PayPal\'s listing of it)')
  t.match(await sweep(), { due: 1, synced: 1, changed: 0, backedOff: 1 }, 'PayPal still says PENDING: nothing changed, so it is deferred')
  t.match(await sweep(), { due: 0, synced: 0 }, 'it waits out its back-off: the storage does not give it as due')
  shop.paypal.simulator.orders.settleRefund(refundId, 'COMPLETED')
  advance(11 * MINUTE)
  t.match(await sweep(), { due: 1, synced: 1, changed: 1 })
  t.same((await statusOf(shop, journey.id)).amounts, { captured: 1999, refunded: 500, reversed: 0 })
  t.match(events.filter((event) => event.type === 'payment.refunded'), [{ payment: { id: journey.id }, amounts: { refunded: 500 } }])
  t.match(await sweep(), { due: 0 }, 'no refund pending any more')
})

t.test('an authorization near its expiry raises payment.authorization_expiring once; past it, PayPal\'s void is found', async (t) => {
  const { shop, events, advance, sweep } = await sweepingShop(t)
  const journey = await pay(shop, {}, 'authorize')
  t.equal(journey.status, 'authorized')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  const { details } = await storedPayment(shop, journey.id)
  const expiresAt = details.purchase_units[0].payments.authorizations[0].expiration_time as string

  advance(27 * DAY)
  t.match(await sweep(), { due: 0 }, 'two days before its expiry: not yet')
  advance(DAY + MINUTE)
  t.match(await sweep(), { due: 1, synced: 1, changed: 0, authorizationsExpiring: 1 })
  const raised = events.filter((event) => event.type === 'payment.authorization_expiring')
  t.match(raised, [{
    type: 'payment.authorization_expiring',
    gateway: 'paypal-v2',
    payment: { model: 'Payment', id: journey.id },
    status: 'authorized',
    expiresAt: new Date(expiresAt).toISOString(),
    amounts: { total: 1999, currency: 'EUR' },
    providerIds: { order: journey.orderId }
  }])
  advance(11 * MINUTE)
  t.match(await sweep(), { synced: 1, authorizationsExpiring: 0 }, 'looked at again: not raised twice')
  t.equal(events.filter((event) => event.type === 'payment.authorization_expiring').length, 1)

  advance(DAY)
  t.match(await sweep(), { synced: 1, changed: 1 }, 'past 29 days PayPal voided it')
  t.equal((await statusOf(shop, journey.id)).status, 'canceled', 'as PayPal says (VOIDED)')
  t.match(await sweep(), { due: 0 })
})

t.test('a provider outage: the Sync fails, the payment backs off, doubling, then is found once PayPal answers', async (t) => {
  const { shop, advance, sweep, ordersRead } = await sweepingShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  shop.paypal.simulator.orders.settleCapture(captureOf((await storedPayment(shop, journey.id)).details).id, 'COMPLETED')
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v2/checkout/orders/*', times: 1000 })
  advance(16 * MINUTE)

  t.match(await sweep(), { due: 1, synced: 0, failed: 1, backedOff: 1 })
  const afterFirst = ordersRead()
  t.match(await sweep(), { due: 0, failed: 0 }, 'backed off: PayPal is not asked again at once')
  t.equal(ordersRead(), afterFirst)
  advance(10 * MINUTE + 1)
  t.match(await sweep(), { failed: 1 }, 'after backoffMs, tried again: still down')
  advance(10 * MINUTE + 1)
  t.match(await sweep(), { due: 0 }, 'the wait doubled (20 minutes)')
  shop.paypal.simulator.faults.clear()
  advance(10 * MINUTE)
  t.match(await sweep(), { synced: 1, changed: 1, failed: 0 }, 'PayPal answers again')
  t.equal((await statusOf(shop, journey.id)).status, 'captured')
})

t.test('money.mismatch: Paywire holds a capture PayPal declined; the Sync keeps Paywire\'s reading and the sweep raises both sides, once', async (t) => {
  const { shop, events, sweep } = await sweepingShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  const payment = await storedPayment(shop, journey.id)
  shop.paypal.simulator.orders.settleCapture(captureOf(payment.details).id, 'DECLINED')
  // Paywire's record says the capture completed (an operator's edit, a lost write...) and a refund was asked whose answer was lost.
  captureOf(payment.details).status = 'COMPLETED'
  payment.details.paywire_refunds = [{ requestId: 'lost-refund', state: 'pending', requested: 100, currency: 'EUR' }]
  await shop.app.paywire.getStorage(Payment).update(payment)
  t.equal((await statusOf(shop, journey.id)).status, 'captured')

  t.match(await sweep(), { synced: 1, changed: 1, mismatches: 1 })
  t.equal((await statusOf(shop, journey.id)).status, 'captured', 'statuses only move forward: Paywire keeps its reading')
  t.match(events.filter((event) => event.type === 'money.mismatch'), [{
    type: 'money.mismatch',
    gateway: 'paypal-v2',
    payment: { model: 'Payment', id: journey.id },
    paywire: { status: 'captured', amounts: { captured: 1999 } },
    provider: { status: 'failed' },
    providerIds: { order: journey.orderId }
  }])
  t.match(await sweep(), { mismatches: 0 }, 'the same disagreement is not raised again')
  t.equal(events.filter((event) => event.type === 'money.mismatch').length, 1)
})

t.test('never two Syncs at once: a payment another request holds is left to it, and the sweep\'s Sync holds the payment\'s claim', async (t) => {
  const { shop, advance, sweep, ordersRead } = await sweepingShop(t)
  const journey = await pay(shop, {}, 'capture', 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  advance(16 * MINUTE)
  const tokens = shop.app.paywire.getTokenStorage()
  const identity = shop.app.paywire.getStorage(Payment).identify(await storedPayment(shop, journey.id))
  const claim = await tokens.claimModel(identity, 60_000)
  const before = ordersRead()
  t.match(await sweep(), { due: 1, synced: 0, busy: 1 }, 'claimed by another request: not Synced')
  t.equal(ordersRead(), before, 'PayPal was not asked')
  await tokens.releaseClaim(claim)

  const held = shop.paypal.simulator.faults.hold({ method: 'GET', path: '/v2/checkout/orders/*' })
  const first = shop.app.paywire.reconcile.sweepOnce()
  await held.reached
  // While the sweep's Sync holds the claim: any other writer of the payment is refused.
  await t.rejects(tokens.claimModel(identity, 1000), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  held.release()
  t.match(await first, { synced: 1 })
  t.equal(ordersRead() - before, 1, 'one read of the order')
})

/** One memory backend two instances share, as they would share Redis: the same storages, claims and outbox. */
class SharedMemoryBackend extends MemoryStorageBackend {
  readonly #storages = new Map<ModelClass, Storage>()
  #tokens: TokenStorage | undefined

  override createTokenStorage (): TokenStorage {
    return (this.#tokens ??= super.createTokenStorage())
  }

  override createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T> {
    let storage = this.#storages.get(Model)
    if (storage === undefined) this.#storages.set(Model, storage = super.createStorage(Model, options) as Storage)
    return storage as Storage<T>
  }
}

t.test('two instances on one backend sweeping at once: one holds the lease, each payment is Synced once', async (t) => {
  const backend = new SharedMemoryBackend()
  const { shop, advance, ordersRead } = await sweepingShop(t, backend)
  const other = Fastify()
  t.teardown(() => other.close())
  await other.register(paywire, { backend })
  await other.register(paypalCheckoutGateway)
  other.paywire.addGateway(GATEWAY, shop.gatewayOptions)
  await other.ready()
  other.paywire.reconcile.configure({ now: () => shop.paypal.simulator.clock.now(), perSecond: 1000 })
  await pay(shop, {}, 'capture', 'approve_pending')
  await pay(shop, {}, 'capture', 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  advance(16 * MINUTE)
  const before = ordersRead()

  const held = shop.paypal.simulator.faults.hold({ method: 'GET', path: '/v2/checkout/orders/*' })
  const first = shop.app.paywire.reconcile.sweepOnce()
  await held.reached
  t.match(await other.paywire.reconcile.sweepOnce(), { leased: false, synced: 0 }, 'the other instance finds the sweep taken and does nothing')
  held.release()
  t.match(await first, { leased: true, due: 2, synced: 2 })
  t.equal(ordersRead() - before, 2, 'each payment read once')
  t.match(await other.paywire.reconcile.sweepOnce(), { leased: true, due: 2, synced: 2, changed: 0 }, 'the lease is free again once the sweep ended')
})
