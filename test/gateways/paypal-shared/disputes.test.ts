import t from 'tap'
import { HumanStatus } from '../../../plugins/core/engine/index.ts'
import { lostDisputesAmount, recordDispute, reversedWithDisputes, withDisputes } from '../../../gateways/paypal-shared/index.ts'

/*
 * Lost disputes as money taken back, from disputes_get's `dispute_outcome`
 * (https://developer.paypal.com/api/customer-disputes/v1/definitions/dispute_outcome): `amount_refunded`
 * when PayPal gives it, else the disputed amount; only outcomes where the shop's money went back.
 */
const amount = (value: string): { value: string, currency_code: string } => ({ value, currency_code: 'USD' })

t.test('recordDispute keeps the outcome\'s amount_refunded; lostDisputesAmount counts it', async (t) => {
  const record: Record<string, any> = {}
  recordDispute(record, { dispute_id: 'PP-D-1', status: 'RESOLVED', reason: 'UNAUTHORISED', dispute_amount: amount('100.00'), dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: amount('40.00') } })
  t.match(record.paywire_disputes, [{ dispute_id: 'PP-D-1', outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: amount('40.00') }])
  t.equal(lostDisputesAmount(record), 4000)
})

t.test('without amount_refunded the disputed amount; ACCEPTED counts, won, paid by PayPal or open ones do not', async (t) => {
  const record = {
    paywire_disputes: [
      { dispute_id: 'a', status: 'RESOLVED', outcome_code: 'ACCEPTED', dispute_amount: amount('10.00') },
      { dispute_id: 'b', status: 'RESOLVED', outcome_code: 'RESOLVED_SELLER_FAVOUR', dispute_amount: amount('20.00') },
      { dispute_id: 'c', status: 'RESOLVED', outcome_code: 'RESOLVED_WITH_PAYOUT', dispute_amount: amount('30.00') },
      { dispute_id: 'd', status: 'UNDER_REVIEW', dispute_amount: amount('40.00') },
      { dispute_id: 'e', status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR' },
      { dispute_id: 'f', status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR', dispute_amount: { value: '1.5', currency_code: 'JPY' } }
    ]
  }
  t.equal(lostDisputesAmount(record), 1000, 'no amount or an amount PayPal cannot mean counts nothing')
  t.equal(lostDisputesAmount({}), 0)
})

t.test('reversedWithDisputes: the larger of reversals and lost disputes, never more than is left', async (t) => {
  const record = { paywire_disputes: [{ dispute_id: 'a', status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR', dispute_amount: amount('100.00') }] }
  t.equal(reversedWithDisputes(0, record, 10000, 0), 10000)
  t.equal(reversedWithDisputes(10000, record, 10000, 0), 10000, 'the REVERSED event and the dispute: the same money')
  t.equal(reversedWithDisputes(0, record, 10000, 2500), 7500, 'what was refunded already cannot be taken back')
  t.equal(reversedWithDisputes(0, record, 2000, 5000), 0)
})

t.test('withDisputes: open suspends; a reversal or a lost dispute leaves a captured payment refunded', async (t) => {
  t.equal(withDisputes(HumanStatus.CAPTURED, {}), HumanStatus.CAPTURED)
  t.equal(withDisputes(HumanStatus.PENDING, { paywire_reversals: [{ id: 'r' }] }), HumanStatus.PENDING)
  t.equal(withDisputes(HumanStatus.REFUNDED, { paywire_disputes: [{ status: 'OPEN' }] }), HumanStatus.SUSPENDED)
  t.equal(withDisputes(HumanStatus.REFUNDED, { paywire_reversals: [{ id: 'r' }] }), HumanStatus.REFUNDED)
  t.equal(withDisputes(HumanStatus.CAPTURED, { paywire_reversals: [{ id: 'r' }] }), HumanStatus.REFUNDED)
  t.equal(withDisputes(HumanStatus.CAPTURED, { paywire_reversals: [] }), HumanStatus.CAPTURED)
  t.equal(withDisputes(HumanStatus.CAPTURED, { paywire_disputes: [{ status: 'RESOLVED', outcome_code: 'RESOLVED_SELLER_FAVOUR', dispute_amount: amount('1.00') }] }), HumanStatus.CAPTURED)
  t.equal(withDisputes(HumanStatus.CAPTURED, { paywire_disputes: [{ status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR', dispute_amount: amount('1.00') }] }), HumanStatus.REFUNDED)
})
