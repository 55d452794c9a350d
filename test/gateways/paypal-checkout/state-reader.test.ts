import t from 'tap'
import { CheckoutStateReader } from '../../../gateways/paypal-checkout/state-reader.ts'

const reader = new CheckoutStateReader()
const DAY = 86_400_000

function authorizedOrder (authorization: Record<string, unknown>): Record<string, unknown> {
  return { id: 'O-1', intent: 'AUTHORIZE', status: 'COMPLETED', purchase_units: [{ payments: { authorizations: [{ id: 'A-1', status: 'CREATED', ...authorization }] } }] }
}

t.test('an authorized order: when PayPal says its authorization lapses, else 29 days after it was made', async (t) => {
  t.equal(reader.read({ details: authorizedOrder({ expiration_time: '2026-12-27T10:00:00Z', create_time: '2026-11-28T10:00:00Z' }) })?.authorizationExpiresAt,
    '2026-12-27T10:00:00.000Z', 'expiration_time of the authorization resource')
  t.equal(reader.read({ details: authorizedOrder({ create_time: '2026-11-28T10:00:00Z' }) })?.authorizationExpiresAt,
    new Date(Date.parse('2026-11-28T10:00:00Z') + 29 * DAY).toISOString(), 'created + 29 days (PayPal\'s authorization period)')
  t.notOk('authorizationExpiresAt' in (reader.read({ details: authorizedOrder({}) }) ?? {}), 'neither time stored: unknown')
  t.notOk('authorizationExpiresAt' in (reader.read({ details: authorizedOrder({ status: 'VOIDED', expiration_time: '2026-12-27T10:00:00Z' }) }) ?? {}), 'voided: nothing lapses')
  t.notOk('authorizationExpiresAt' in (reader.read({ details: { id: 'O-2', status: 'APPROVED' } }) ?? {}), 'not authorized')
})

t.test('refunds PayPal lists as not settled, and the ones Paywire asked for whose answer was lost, are pending', async (t) => {
  const capture = { id: 'C-1', status: 'PARTIALLY_REFUNDED', amount: { value: '10.00', currency_code: 'EUR' } }
  const refunds = [
    { id: 'R-1', status: 'PENDING', amount: { value: '1.00', currency_code: 'EUR' } },
    { id: 'R-2', status: 'COMPLETED', amount: { value: '1.00', currency_code: 'EUR' } },
    { id: 'R-3', status: 'FAILED', amount: { value: '1.00', currency_code: 'EUR' } },
    { id: 'R-4', status: 'CANCELLED', amount: { value: '1.00', currency_code: 'EUR' } }
  ]
  const ledger = [
    { requestId: 'k-1', state: 'pending', requested: 100, currency: 'EUR' },
    { requestId: 'k-2', state: 'processing', id: 'R-1', requested: 100, currency: 'EUR' },
    { requestId: 'k-3', state: 'processing', id: 'R-9', requested: 100, currency: 'EUR' },
    { requestId: 'k-4', state: 'completed', id: 'R-2', requested: 100, currency: 'EUR' },
    { requestId: 'k-5', state: 'refused', requested: 100, currency: 'EUR' }
  ]
  const order = { id: 'O-3', status: 'COMPLETED', purchase_units: [{ payments: { captures: [capture], refunds } }], paywire_refunds: ledger }
  const state = reader.read({ details: order })
  t.equal(state?.refundsPending, 3, 'R-1 (counted once), the lost answer, and R-9 PayPal does not list yet')
  t.equal(state?.status, 'refunded')
  t.notOk('refundsPending' in (reader.read({ details: { ...order, paywire_refunds: undefined, purchase_units: [{ payments: { captures: [capture], refunds: refunds.slice(1) } }] } }) ?? {}))
})
