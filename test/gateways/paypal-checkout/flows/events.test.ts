/*
 * paypal_checkout's payment events: the engine compares the order's state before and after each
 * commit through the gateway's state reader, so a capture and a refund each make one event with
 * the order's ids and the amounts that moved.
 */
import t from 'tap'
import { Refund } from '../../../../plugins/core/index.ts'
import type { PaymentEvent } from '../../../../plugins/core/engine/index.ts'
import { GATEWAY, exclusive, pay, startCheckoutShop } from '../fixtures/shop.ts'

t.test('a capture makes payment.captured, a partial refund payment.refunded, each once, with the order\'s ids and amounts', async (t) => {
  const shop = await startCheckoutShop(t)
  const heard: PaymentEvent[] = []
  shop.app.paywire.on('*', (event) => { heard.push(event as PaymentEvent) })
  const journey = await pay(shop, { totalAmount: 1999, currencyCode: 'EUR' })
  t.equal(journey.status, 'captured')
  await exclusive(shop, journey.id, (model) => new Refund(model, { amount: 500 }))
  await shop.app.paywire.events.drain()

  const mine = heard.filter((event) => event.payment?.id === journey.id)
  const captured = mine.filter((event) => event.type === 'payment.captured')
  t.equal(captured.length, 1, 'one payment.captured')
  t.match(captured[0], {
    gateway: GATEWAY,
    previousStatus: 'pending',
    status: 'captured',
    amounts: { captured: 1999, refunded: 0, currency: 'EUR' },
    providerIds: { order: journey.orderId, capture: /^\w+$/ }
  })
  const refunded = mine.filter((event) => event.type === 'payment.refunded')
  t.equal(refunded.length, 1, 'one payment.refunded')
  t.match(refunded[0], { amounts: { captured: 1999, refunded: 500 } })
  t.equal(new Set(mine.map((event) => event.id)).size, mine.length, 'every event has its own id')
})
