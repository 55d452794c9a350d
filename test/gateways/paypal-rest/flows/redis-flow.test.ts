import t from 'tap'
import { RedisStorageBackend } from '../../../../plugins/redis/index.ts'
import { decodeRecord, recordKey } from '../../../../plugins/redis/keys.ts'
import { testRedis } from '../../../plugins/redis/fixtures.ts'
import { pay, readDone, saleOf, startShop, storedPayment } from '../fixtures/shop.ts'

t.test('on Redis: a Payment paid through PayPal, then a webhook finds it by PayPal\'s id and moves it forward', async (t) => {
  const { client: redis, prefix: keyPrefix } = await testRedis(t, 'paypal-rest')
  // Webhooks find a Payment by details.id, which the default indexes cover.
  const backend = new RedisStorageBackend(redis, { keyPrefix })
  const shop = await startShop(t, { backend })

  const { id, paymentId, done } = await pay(shop, { totalAmount: 4200, currencyCode: 'USD' }, 'approve_pending')
  t.equal(done.status, 'pending')
  t.equal(await redis.exists(recordKey(keyPrefix, 'Payment', id)), 1, 'the payment lives in Redis')
  t.equal(await redis.zscore(`${keyPrefix}index:{Payment}:details.id:${paymentId}`, id) !== null, true, 'indexed by PayPal\'s id')

  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.settleSale(saleOf((await storedPayment(shop, id)).details).id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.same([...new Set(shop.paypal.simulator.webhooks.deliveries().map((delivery) => delivery.attempts.at(-1)?.statusCode))], [204])
  t.equal((await readDone(done.doneUrl)).status, 'captured')
  const stored = JSON.parse(decodeRecord(await redis.get(recordKey(keyPrefix, 'Payment', id)) as string).json)
  t.match(stored, { totalAmount: 4200, currencyCode: 'USD', details: { id: paymentId, state: 'approved' } })
  t.equal(saleOf(stored.details).state, 'completed')
})

t.test('on Redis: the REST details record keeps its storage id in idStorage and is indexed by PayPal\'s id', async (t) => {
  const { client: redis, prefix: keyPrefix } = await testRedis(t, 'paypal-rest')
  const shop = await startShop(t, { backend: new RedisStorageBackend(redis, { keyPrefix }) })
  const { id, paymentId, done } = await pay(shop, {}, 'approve', 'details')
  t.equal(done.status, 'captured')
  t.match(JSON.parse(decodeRecord(await redis.get(recordKey(keyPrefix, 'PaymentDetails', id)) as string).json), { idStorage: id, id: paymentId, state: 'approved' })
  t.equal(await redis.zscore(`${keyPrefix}index:{PaymentDetails}:id:${paymentId}`, id) !== null, true)
})
