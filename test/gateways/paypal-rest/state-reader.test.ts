import t from 'tap'
import { PaypalStateReader } from '../../../gateways/paypal-rest/state-reader.ts'

const reader = new PaypalStateReader()

t.test('a sale\'s refunds PayPal lists as not settled, and the ones Paywire asked for whose answer was lost, are pending', async (t) => {
  const amount = { total: '1.00', currency: 'USD' }
  const payment = {
    id: 'PAYID-1',
    intent: 'sale',
    state: 'approved',
    transactions: [{
      related_resources: [
        { sale: { id: 'S-1', state: 'partially_refunded', amount: { total: '10.00', currency: 'USD' } } },
        { refund: { id: 'R-1', state: 'pending', amount } },
        { refund: { id: 'R-2', state: 'completed', amount } },
        { refund: { id: 'R-3', state: 'failed', amount } },
        { refund: null }
      ]
    }],
    paywire_refunds: [
      { requestId: 'k-1', state: 'pending', requested: 100, currency: 'USD' },
      { requestId: 'k-2', state: 'processing', id: 'R-1', requested: 100, currency: 'USD' },
      { requestId: 'k-3', state: 'completed', id: 'R-2', requested: 100, currency: 'USD' }
    ]
  }
  const state = reader.read(payment)
  t.equal(state?.refundsPending, 2, 'R-1 (listed and in the ledger: once) and the lost answer')
  t.equal(state?.providerIds?.refund, 'R-2', 'the refund ids are read as before')
  t.notOk('authorizationExpiresAt' in (state ?? {}), 'a sale has no authorization to lapse')
  const settled = reader.read({ details: { ...payment, paywire_refunds: [], transactions: [{ related_resources: payment.transactions[0]?.related_resources.slice(0, 1) }] } })
  t.notOk('refundsPending' in (settled ?? {}), 'none pending: no field')
})
