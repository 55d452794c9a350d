import t from 'tap'
import { minorUnitsOf } from '../../../gateways/paypal-rest/amounts.ts'
import { paypalAmounts } from '../../../gateways/paypal-rest/index.ts'

const record = (saleState: string, related: Array<Record<string, unknown>> = [], extra: Record<string, unknown> = {}) => ({
  state: 'approved',
  transactions: [{ related_resources: [{ sale: { id: 'S1', state: saleState, amount: { total: '19.99', currency: 'EUR' } } }, ...related] }],
  ...extra
})

t.test('amounts in minor units, with the currency\'s exponent', async (t) => {
  t.equal(minorUnitsOf({ total: '19.99', currency: 'EUR' }), 1999)
  t.equal(minorUnitsOf({ total: '1500', currency: 'HUF' }), 150000, 'PayPal\'s whole HUF, ISO 4217 minor units')
  t.equal(minorUnitsOf({ total: '-5.00', currency: 'EUR' }), 500, 'a reversal\'s negative amount is what it took back')
  t.equal(minorUnitsOf({ total: 'lots', currency: 'EUR' }), undefined)
  t.equal(minorUnitsOf({ total: 5, currency: 'EUR' }), undefined)
  t.equal(minorUnitsOf(undefined), undefined)
})

t.test('before there is a sale nothing is known; a pending or denied sale took nothing', async (t) => {
  t.equal(paypalAmounts({}), undefined)
  t.equal(paypalAmounts({ state: 'created' }), undefined)
  t.same(paypalAmounts(record('pending')), { captured: 0, refunded: 0, reversed: 0 })
  t.same(paypalAmounts(record('denied')), { captured: 0, refunded: 0, reversed: 0 })
  t.same(paypalAmounts(record('completed')), { captured: 1999, refunded: 0, reversed: 0 })
})

t.test('refunds: PayPal\'s list and Paywire\'s own, each counted once; failed ones and pending intents are not money back', async (t) => {
  const refund = (id: string, total: string, state = 'completed') => ({ refund: { id, state, amount: { total, currency: 'EUR' } } })
  const amounts = paypalAmounts(record('partially_refunded', [refund('R1', '5.00'), refund('R2', '1.00', 'failed')], {
    paywire_refunds: [
      { state: 'completed', id: 'R1', amount: { total: '5.00', currency: 'EUR' } },
      { state: 'completed', id: 'R3', amount: { total: '2.00', currency: 'EUR' } },
      { state: 'pending', requestId: 'k-refund-1', requested: 300 },
      { state: 'refused', requestId: 'k-refund-2', requested: 9999 }
    ]
  }))
  t.same(amounts, { captured: 1999, refunded: 700, reversed: 0 })
})

t.test('reversals: as the webhook told them, or what was left of a sale whose reason_code says PayPal took it back', async (t) => {
  const refund = { refund: { id: 'R1', state: 'completed', amount: { total: '5.00', currency: 'EUR' } } }
  const reversedSale = (state: string, reasonCode: string, related: Array<Record<string, unknown>> = [], extra: Record<string, unknown> = {}) => {
    const built = record(state, related, extra)
    Object.assign(built.transactions[0]?.related_resources[0]?.sale as object, { reason_code: reasonCode })
    return built
  }
  t.same(paypalAmounts(reversedSale('partially_refunded', 'CHARGEBACK', [refund])), { captured: 1999, refunded: 500, reversed: 1499 })
  t.same(paypalAmounts(reversedSale('completed', 'BUYER_COMPLAINT')), { captured: 1999, refunded: 0, reversed: 1999 })
  t.same(paypalAmounts(reversedSale('completed', 'GUARANTEE')), { captured: 1999, refunded: 0, reversed: 1999 })
  t.same(paypalAmounts(reversedSale('pending', 'ECHECK')), { captured: 0, refunded: 0, reversed: 0 }, 'a reason to be pending is no reversal')
  t.same(paypalAmounts(reversedSale('partially_refunded', 'REFUND', [refund])), { captured: 1999, refunded: 500, reversed: 0 }, 'REFUND: the shop\'s own refund says so by the state')
  t.same(paypalAmounts(record('partially_refunded', [refund], { paywire_reversals: [{ id: 'X1', amount: { total: '14.99', currency: 'EUR' } }, { id: 'X1', amount: { total: '14.99', currency: 'EUR' } }] })),
    { captured: 1999, refunded: 500, reversed: 1499 }, 'each reversal once')
  t.same(paypalAmounts(record('completed', [], { paywire_reversals: [{ id: 'X2', amount: { total: '10.00', currency: 'EUR' } }] })), { captured: 1999, refunded: 0, reversed: 1000 })
  t.same(paypalAmounts(reversedSale('completed', 'CHARGEBACK', [], { paywire_reversals: [{ id: 'X2', amount: { total: '10.00', currency: 'EUR' } }] })),
    { captured: 1999, refunded: 0, reversed: 1000 }, 'the reversal PayPal reported wins over the inference')
  t.same(paypalAmounts(record('reversed')), { captured: 0, refunded: 0, reversed: 0 }, 'no v1 sale state `reversed`: nothing read from it')
})
