import t, { type Test } from 'tap'
import { PaymentDetails } from '../../../../gateways/paypal-rest/index.ts'
import { capture, engineSetup } from '../fixtures/paywire.ts'
import { GATEWAY, checkout, pay, startShop, storedPayment, visit, type Order, type Shop } from '../fixtures/shop.ts'

/** The capture URL of a payment PayPal would refuse: a coded 4xx, PayPal never called, the payment still new. */
async function refusedBeforePaypal (t: Test, shop: Shop, order: Order, code: string, message: RegExp): Promise<void> {
  const { id, captureUrl } = await checkout(shop, order)
  const refused = await visit(captureUrl)
  t.equal(refused.status, 400, `${JSON.stringify(order)}: a 4xx, never a 500`)
  t.match(JSON.parse(refused.body), { code, message })
  const { details } = await storedPayment(shop, id)
  t.notOk('state' in details, 'the payment is untouched')
  t.notOk('paywire_request_ids' in details, 'no request id was spent')
}

t.test('amounts PayPal refuses never reach it: over 7 digits, zero, an unaccepted currency', async (t) => {
  const shop = await startShop(t)
  await refusedBeforePaypal(t, shop, { totalAmount: 1_000_000_000, currencyCode: 'USD' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE',
    /10000000\.00 USD .*at most 9999999\.99 USD \(7 digits before the decimal point, 2 decimals\)/)
  await refusedBeforePaypal(t, shop, { totalAmount: 0, currencyCode: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE', /0\.00 EUR .*more than 0/)
  await refusedBeforePaypal(t, shop, { totalAmount: 12_345_678, currencyCode: 'JPY' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE',
    /12345678 JPY .*at most 9999999 JPY \(7 digits before the decimal point, no decimals\)/)
  await refusedBeforePaypal(t, shop, { totalAmount: 1000, currencyCode: 'KWD' }, 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED', /PayPal does not accept payments in KWD: .*EUR.*USD/)
  await refusedBeforePaypal(t, shop, { totalAmount: 1000, currencyCode: 'KRW' }, 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED', /KRW/)
  t.equal(shop.paypal.simulator.counters().paymentsCreated, 0, 'PayPal heard of none of them')
})

t.test('the largest amounts PayPal takes go through', async (t) => {
  const shop = await startShop(t)
  t.equal((await pay(shop, { totalAmount: 999_999_999, currencyCode: 'USD' })).done.status, 'captured')
  t.equal((await pay(shop, { totalAmount: 9_999_999, currencyCode: 'JPY' })).done.status, 'captured')
  t.equal((await pay(shop, { totalAmount: 1, currencyCode: 'GBP' })).done.status, 'captured')
  t.equal(shop.paypal.simulator.counters().paymentsCreated, 3)
})

t.test('a REST details record the shop filled in itself is checked alike before the call', async (t) => {
  const setup = await engineSetup(t)
  const storage = setup.paywire.getStorage(PaymentDetails)
  for (const [amount, code] of [
    [{ total: '10.00', currency: 'KWD' }, 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED'],
    [{ total: '10000000.00', currency: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [{ total: '0', currency: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [{ total: '100.5', currency: 'JPY' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [{ total: '1.999', currency: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [{ total: 'abc', currency: 'EUR' }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE'],
    [undefined, 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED']
  ] as const) {
    const details = storage.create()
    await storage.update(details)
    const token = await setup.paywire.getTokenFactory().createCaptureToken(GATEWAY, details, 'done')
    details.transactions = [{ amount, description: 'Mug' } as never]
    await storage.update(details)
    await t.rejects(capture(setup.paywire, token), { code, statusCode: 400 }, JSON.stringify(amount))
    t.notOk((await storage.find(details.idStorage as string))?.state, 'still new')
  }
  t.equal(setup.paypal.simulator.counters().paymentsCreated, 0)
})

t.test('shop-set transactions cannot make PayPal charge another amount than the payment\'s', async (t) => {
  const shop = await startShop(t)
  const other = { transactions: [{ amount: { total: '250.00', currency: 'EUR' } }] }
  await refusedBeforePaypal(t, shop, { totalAmount: 100, currencyCode: 'USD', details: other }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH',
    /charge 250\.00 EUR, not the payment's amount \(100 minor units of USD\)/)
  await refusedBeforePaypal(t, shop, { totalAmount: 100, currencyCode: 'USD', details: { transactions: [{ amount: { total: '1.00', currency: 'EUR' } }] } },
    'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH', /1\.00 EUR/)
  await refusedBeforePaypal(t, shop, { totalAmount: 100, currencyCode: 'USD', details: { transactions: [{ amount: { total: '1.001', currency: 'USD' } }] } },
    'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH', /1\.001 USD/)
  const two = { transactions: [{ amount: { total: '0.50', currency: 'USD' } }, { amount: { total: '0.50', currency: 'USD' } }] }
  await refusedBeforePaypal(t, shop, { totalAmount: 100, currencyCode: 'USD', details: two }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH', /exactly one transaction/)
  await refusedBeforePaypal(t, shop, { totalAmount: 100, currencyCode: 'USD', details: { transactions: 'all of it' } }, 'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH', /exactly one/)
  t.equal(shop.paypal.simulator.counters().paymentsCreated, 0)
})

t.test('a shop-set item_list or description merges with the converted amount; an amount equal to the payment\'s is kept', async (t) => {
  const shop = await startShop(t)
  const items = { items: [{ name: 'Mug', quantity: '1', price: '19.99', currency: 'EUR' }] }
  const listed = await pay(shop, { totalAmount: 1999, currencyCode: 'EUR', details: { transactions: [{ item_list: items, description: 'Blue mug' }] } })
  t.equal(listed.done.status, 'captured')
  t.match(shop.paypal.simulator.payment(listed.paymentId)?.transactions[0], {
    amount: { total: '19.99', currency: 'EUR' }, item_list: items, description: 'Blue mug'
  }, 'PayPal charged the payment\'s amount, with the shop\'s items')

  const own = { total: '15', currency: 'HUF', details: { subtotal: '14', shipping: '1' } }
  const detailed = await pay(shop, { totalAmount: 1500, currencyCode: 'HUF', details: { transactions: [{ amount: own, custom: 'c-1' }] } })
  t.equal(detailed.done.status, 'captured')
  t.match(shop.paypal.simulator.payment(detailed.paymentId)?.transactions[0], { amount: { total: '15', currency: 'HUF' }, custom: 'c-1' })
  t.match((await storedPayment(shop, detailed.id)).details.transactions[0].related_resources[0].sale.amount, { total: '15', currency: 'HUF' })
})

t.test('authorize and order intents are refused up front, never sent to PayPal to fail later', async (t) => {
  const shop = await startShop(t)
  for (const intent of ['authorize', 'order', 'SALE']) {
    await refusedBeforePaypal(t, shop, { details: { intent } }, 'PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED', new RegExp(`intent "sale" only, not "${intent}"`))
  }
  t.equal((await pay(shop, { details: { intent: 'sale' } })).done.status, 'captured', 'sale, said explicitly, goes through')

  const setup = await engineSetup(t)
  const storage = setup.paywire.getStorage(PaymentDetails)
  const details = storage.create()
  await storage.update(details)
  const token = await setup.paywire.getTokenFactory().createCaptureToken(GATEWAY, details, 'done')
  Object.assign(details, { intent: 'authorize', transactions: [{ amount: { total: '19.99', currency: 'EUR' } }] })
  await storage.update(details)
  await t.rejects(capture(setup.paywire, token), { code: 'PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED', statusCode: 400 })
  t.equal(shop.paypal.simulator.counters().paymentsCreated + setup.paypal.simulator.counters().paymentsCreated, 1, 'only the sale reached PayPal')
})
