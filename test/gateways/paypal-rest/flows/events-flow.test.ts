/*
 * Payment events with PayPal, end to end: two shop instances share one Redis; PayPal's
 * webhook (the real simulator, over loopback HTTP) reaches both; the shop hears
 * payment.captured once for the whole group.
 */
import Fastify from 'fastify'
import t from 'tap'
import { paypalRestGateway } from '../../../../gateways/paypal-rest/index.ts'
import { paywire, type PaymentEvent } from '../../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../../plugins/redis/index.ts'
import { newClient, testRedis } from '../../../plugins/redis/fixtures.ts'
import { GATEWAY, pay, readDone, saleOf, startShop, storedPayment, type Shop } from '../fixtures/shop.ts'

/** A second instance of the shop: same Redis and key prefix, same PayPal account, its own webhook subscription. */
async function secondInstance (t: any, shop: Shop, keyPrefix: string) {
  const client = newClient()
  t.teardown(() => client.quit())
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire, { backend: new RedisStorageBackend(client, { keyPrefix }), events: { retryBaseMs: 1 } })
  await app.register(paypalRestGateway)
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const { id: webhookId } = shop.paypal.simulator.webhooks.subscribe({ url: `${origin}/payment/notify/unsafe/${GATEWAY}`, clientId: shop.client.clientId })
  app.paywire.addGateway(GATEWAY, { ...shop.gatewayOptions, factory: 'paypal_rest', webhook_id: webhookId })
  return app
}

t.test('a webhook-driven capture fires payment.captured exactly once across two instances sharing Redis', async (t) => {
  const { client, prefix: keyPrefix } = await testRedis(t, 'events-flow')
  const shop = await startShop(t, { backend: new RedisStorageBackend(client, { keyPrefix }), configure: (builder) => builder.setEventDelivery({ retryBaseMs: 1 }) })
  const other = await secondInstance(t, shop, keyPrefix)
  const heard: Array<[string, PaymentEvent]> = []
  shop.app.paywire.on('payment.captured', (event) => { heard.push(['first', event]) })
  other.paywire.on('payment.captured', (event) => { heard.push(['second', event]) })
  const pending: string[] = []
  shop.app.paywire.on('payment.pending', (event) => { pending.push(event.payment.id) })
  other.paywire.on('payment.pending', (event) => { pending.push(event.payment.id) })

  const { id, paymentId, done } = await pay(shop, { number: 'DEMO-42' }, 'approve_pending')
  t.equal(done.status, 'pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  const sale = saleOf((await storedPayment(shop, id)).details)
  // PayPal settles the sale: its PAYMENT.SALE.COMPLETED goes to both instances' subscriptions.
  shop.paypal.simulator.settleSale(sale.id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'captured')
  t.equal(shop.paypal.simulator.webhooks.deliveries().filter((delivery) => delivery.eventType === 'PAYMENT.SALE.COMPLETED').length, 2, 'both instances were told')
  await Promise.all([shop.app.paywire.events.drain(), other.paywire.events.drain()])

  t.equal(heard.length, 1, 'heard once by the group')
  t.match(heard[0]?.[1], {
    type: 'payment.captured',
    gateway: GATEWAY,
    payment: { model: 'Payment', id, number: 'DEMO-42' },
    previousStatus: 'pending',
    status: 'captured',
    amounts: { total: 1999, currency: 'EUR', captured: 1999, refunded: 0, reversed: 0 },
    providerIds: { payment: paymentId, sale: sale.id }
  })
  t.same(pending, [id], 'the return to the shop made payment.pending, once')
})
