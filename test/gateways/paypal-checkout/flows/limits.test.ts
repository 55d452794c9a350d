/*
 * PayPal's amount and currency limits (the shared layer's checks) hold for Orders v2 too:
 * refused before any call, so the shop can correct the payment.
 */
import t from 'tap'
import { checkout, startCheckoutShop, storedPayment, visit } from '../fixtures/shop.ts'

t.test('a total or currency PayPal refuses is refused before any order is created, and the payment stays new', async (t) => {
  const shop = await startCheckoutShop(t)
  const cases: Array<[{ totalAmount: number, currencyCode: string }, string]> = [
    [{ totalAmount: 1000, currencyCode: 'KWD' }, 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED'],
    [{ totalAmount: 1_000_000_000, currencyCode: 'USD' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [{ totalAmount: 0, currencyCode: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE']
  ]
  for (const [order, code] of cases) {
    const { id, captureUrl } = await checkout(shop, order)
    const page = await visit(captureUrl)
    t.equal(page.status, 400, `${order.totalAmount} ${order.currencyCode}: 400`)
    t.match(page.body, code)
    t.equal((await storedPayment(shop, id)).details.id, undefined, 'no order id stored')
  }
  t.equal(shop.paypal.simulator.orders.counters().ordersCreated, 0, 'PayPal never heard of them')
})
