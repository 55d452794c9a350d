import t from 'tap'
import { recordReversal } from '../../../gateways/paypal-shared/index.ts'

/*
 * A chargeback as PayPal's REVERSED events tell it, kept the same way for both APIs: Payments v1's
 * PAYMENT.SALE.REVERSED (https://developer.paypal.com/api/rest/webhooks/event-names/#sales) gives a
 * negative { total, currency }; Orders v2's PAYMENT.CAPTURE.REVERSED a refund resource with
 * { value, currency_code }.
 */
t.test('each reversal is kept once, by its id, with a positive amount in the API\'s own shape', async (t) => {
  const record: Record<string, any> = {}
  recordReversal(record, { id: 'R-1', amount: { total: '-14.99', currency: 'EUR' }, reason_code: 'CHARGEBACK', sale_id: 'S-1', state: 'completed' })
  recordReversal(record, { id: 'R-1', amount: { total: '-14.99', currency: 'EUR' } })
  recordReversal(record, { id: 'R-2', amount: { value: '-5.00', currency_code: 'USD' }, status: 'COMPLETED' })
  recordReversal(record, { id: 'R-3', amount: { value: 5 } })
  recordReversal(record, { amount: { total: '-1.00', currency: 'EUR' } })
  t.same(record.paywire_reversals, [
    { id: 'R-1', amount: { total: '14.99', currency: 'EUR' }, reason_code: 'CHARGEBACK', sale_id: 'S-1' },
    { id: 'R-2', amount: { value: '5.00', currency_code: 'USD' } },
    { id: 'R-3' }
  ], 'a resource without an id is no reversal; an amount in neither shape is left out')
})
