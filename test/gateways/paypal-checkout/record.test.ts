import t from 'tap'
import { checkoutAmounts } from '../../../gateways/paypal-checkout/record.ts'

/*
 * What a lost dispute's money counts as when Sync reads the order before PAYMENT.CAPTURE.REVERSED came:
 * the capture's reversal is listed among its refunds, and only a refund Paywire did not make (no ledger
 * entry, no custom_id of its own) can be it.
 */
const usd = (value: string): Record<string, string> => ({ value, currency_code: 'USD' })
const order = (refunds: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  status: 'COMPLETED',
  purchase_units: [{ payments: { captures: [{ id: 'CAP-1', status: 'PARTIALLY_REFUNDED', amount: usd('100.00') }], refunds } }],
  ...extra
})
const lost = { paywire_disputes: [{ dispute_id: 'PP-D-1', status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR', dispute_amount: usd('30.00') }] }

t.test('a listed refund nobody here made, with a lost dispute: reversed up to what the dispute took', async (t) => {
  t.same(checkoutAmounts(order([{ id: 'R-1', status: 'COMPLETED', amount: usd('30.00') }], lost)), { captured: 10000, refunded: 0, reversed: 3000 })
  t.same(checkoutAmounts(order([{ id: 'R-1', status: 'COMPLETED', amount: usd('50.00') }], lost)), { captured: 10000, refunded: 2000, reversed: 3000 },
    'what the dispute did not take stays a refund (one made in PayPal\'s dashboard)')
  t.same(checkoutAmounts(order([{ id: 'R-1', status: 'COMPLETED', amount: usd('30.00') }])), { captured: 10000, refunded: 3000, reversed: 0 }, 'no lost dispute: a refund')
})

t.test('Paywire\'s own refunds stay refunds: by the ledger\'s id, or by the custom_id Paywire sets on them', async (t) => {
  const ledger = { paywire_refunds: [{ id: 'R-2', state: 'completed', amount: usd('10.00') }] }
  t.same(checkoutAmounts(order([{ id: 'R-2', status: 'COMPLETED', amount: usd('10.00') }, { id: 'R-1', status: 'COMPLETED', amount: usd('30.00') }], { ...lost, ...ledger })),
    { captured: 10000, refunded: 1000, reversed: 3000 })
  t.same(checkoutAmounts(order([{ id: 'R-3', status: 'COMPLETED', amount: usd('10.00'), custom_id: 'order-7' }], lost)), { captured: 10000, refunded: 1000, reversed: 3000 },
    'an answer lost before the ledger had its id: the custom_id tells it is Paywire\'s; the dispute\'s money still counts reversed')
  t.same(checkoutAmounts(order([{ id: 'R-4', status: 'COMPLETED', amount: usd('30.00') }], { ...lost, paywire_reversals: [{ id: 'R-4', amount: usd('30.00') }] })),
    { captured: 10000, refunded: 0, reversed: 3000 }, 'the REVERSED webhook came: counted once')
})
