import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { paypalCheckoutGateway } from '../../../../../gateways/paypal-checkout/index.ts'
import { paywire, type StorageBackend } from '../../../../../plugins/core/index.ts'
import { PostgresStorageBackend } from '../../../../../plugins/postgres/index.ts'
import { RedisStorageBackend } from '../../../../../plugins/redis/index.ts'
import { GATEWAY, captureOf, pay, startCheckoutShop, statusOf, storedPayment } from '../../../../gateways/paypal-checkout/fixtures/shop.ts'
import { testPostgres } from '../../../postgres/fixtures.ts'
import { testRedis } from '../../../redis/fixtures.ts'

const MINUTE = 60_000

/*
 * Two instances of a shop on one store, sweeping at the same moment: the lease on the store's
 * outbox lets one sweep, the index finds the due payments, and each payment is Synced once.
 * Each instance has a backend object of its own over the same keys or schema, as two processes would.
 */
async function twoInstancesSweep (t: Test, backend: () => StorageBackend): Promise<void> {
  const shop = await startCheckoutShop(t, { backend: backend() })
  const clock = shop.paypal.simulator.clock
  const other = Fastify()
  t.teardown(() => other.close())
  await other.register(paywire, { backend: backend() })
  await other.register(paypalCheckoutGateway)
  other.paywire.addGateway(GATEWAY, shop.gatewayOptions)
  await other.ready()
  for (const app of [shop.app, other]) app.paywire.reconcile.configure({ now: () => clock.now(), perSecond: 1000 })
  const captured: string[] = []
  shop.app.paywire.on('payment.captured', (event) => { captured.push(event.payment.id) })
  other.paywire.on('payment.captured', (event) => { captured.push(event.payment.id) })

  const journeys = [await pay(shop, {}, 'capture', 'approve_pending'), await pay(shop, {}, 'capture', 'approve_pending')]
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  for (const journey of journeys) shop.paypal.simulator.orders.settleCapture(captureOf((await storedPayment(shop, journey.id)).details).id, 'COMPLETED')
  clock.advance(16 * MINUTE)
  const reads = (): number => shop.paypal.simulator.requests({ method: 'GET', path: '/v2/checkout/orders/*' }).length
  const before = reads()

  const held = shop.paypal.simulator.faults.hold({ method: 'GET', path: '/v2/checkout/orders/*' })
  const first = shop.app.paywire.reconcile.sweepOnce()
  await held.reached
  t.match(await other.paywire.reconcile.sweepOnce(), { leased: false, synced: 0 }, 'the other instance finds the sweep taken')
  held.release()
  t.match(await first, { leased: true, due: 2, synced: 2, changed: 2 })
  t.equal(reads() - before, 2, 'each payment read once')
  for (const journey of journeys) t.equal((await statusOf(shop, journey.id)).status, 'captured')
  t.match(await other.paywire.reconcile.sweepOnce(), { leased: true, due: 0 }, 'captured: no longer due, on either instance')
  await Promise.all([shop.app.paywire.events.drain(), other.paywire.events.drain()])
  t.same(captured.sort(), journeys.map((journey) => journey.id).sort(), 'payment.captured delivered once each, by one of them')
}

t.test('on Redis', async (t) => {
  const { client, prefix } = await testRedis(t, 'reconcile')
  await twoInstancesSweep(t, () => new RedisStorageBackend(client, { keyPrefix: prefix }))
})

t.test('on PostgreSQL', async (t) => {
  const { pool, schema } = await testPostgres(t, 'reconcile')
  await twoInstancesSweep(t, () => new PostgresStorageBackend(pool, { schema }))
})
