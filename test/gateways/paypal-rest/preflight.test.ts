import t from 'tap'
import { assertSaleIntent, assertSendable } from '../../../gateways/paypal-rest/preflight.ts'

t.test('a record without transactions has no amount to refuse: PayPal itself answers for what is missing', async (t) => {
  t.doesNotThrow(() => assertSendable({ intent: 'sale' }))
  t.doesNotThrow(() => assertSendable({ transactions: [{ amount: { total: '1', currency: 'JPY' } }] }))
})

t.test('a transaction that is no object, or has no amount, names no currency PayPal takes', async (t) => {
  for (const transaction of [null, 'x', {}, { amount: null }]) {
    t.throws(() => assertSendable({ transactions: [transaction] }), { code: 'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED' }, JSON.stringify(transaction))
  }
})

t.test('every transaction is checked, not only the first', async (t) => {
  t.throws(() => assertSendable({ transactions: [{ amount: { total: '1.00', currency: 'EUR' } }, { amount: { total: '0.00', currency: 'EUR' } }] }),
    { code: 'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE', message: /0\.00 EUR/ })
})

t.test('intent: absent or sale only', async (t) => {
  t.doesNotThrow(() => assertSaleIntent(undefined))
  t.doesNotThrow(() => assertSaleIntent('sale'))
  for (const intent of ['authorize', 'order', null, 7]) t.throws(() => assertSaleIntent(intent), { code: 'PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED', statusCode: 400 })
})
