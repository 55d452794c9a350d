import t from 'tap'
import { bearer, paidPayment, simulator } from '../fixtures/helpers.ts'
import { createOrder, orderRequest, ordersApi, paidOrder } from './fixtures.ts'

t.test('authorize refused, or DENIED; bodies that are no order; a dispute on a transaction without invoice or custom id', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api, orderRequest({ intent: 'AUTHORIZE' }))
  api.app.simulator.orders.approve(order.id, { outcome: 'payer_action_required' })
  const refused = await api.call('POST', `/v2/checkout/orders/${order.id}/authorize`, {})
  t.match(refused.json(), { details: [{ issue: 'PAYER_ACTION_REQUIRED', description: 'Transaction cannot complete successfully, instruct the buyer to return to PayPal.' }] })
  api.app.simulator.orders.approve(order.id, { outcome: 'capture_declined' })
  t.match((await api.call('POST', `/v2/checkout/orders/${order.id}/authorize`, {})).json(), { purchase_units: [{ payments: { authorizations: [{ status: 'DENIED' }] } }] })
  const pending = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }, { invoice_id: 'INV-2' }), 'pending')).purchase_units[0].payments.authorizations[0]
  t.match(pending, { status: 'PENDING', status_details: { reason: 'PENDING_REVIEW' } })

  t.match((await api.call('POST', '/v2/checkout/orders', ['not', 'an', 'object'])).json(), { details: [{ issue: 'MISSING_REQUIRED_PARAMETER', field: '/intent' }] })
  t.match((await api.call('POST', '/v2/checkout/orders', orderRequest({}, { items: ['mug'] }))).json(), { details: [{ issue: 'INVALID_PARAMETER_SYNTAX' }] })

  const bare = (await paidOrder(api, orderRequest({ payment_source: undefined }, { invoice_id: undefined, custom_id: undefined }))).purchase_units[0].payments.captures[0]
  const dispute = api.app.simulator.disputes.open(bare.id)
  t.same(Object.keys((dispute.disputed_transactions as Array<Record<string, unknown>>)[0] as object).sort(), ['create_time', 'gross_amount', 'seller_protection_eligible', 'seller_transaction_id'])

  const page = await api.app.inject({ method: 'POST', url: '/checkoutnow', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(page.statusCode, 404, 'no token, no order')

  const app = simulator(t)
  const { saleId } = await paidPayment(app, await bearer(app))
  t.same(Object.keys((app.simulator.disputes.open(saleId).disputed_transactions as Array<Record<string, unknown>>)[0] as object).sort(),
    ['create_time', 'gross_amount', 'seller_protection_eligible', 'seller_transaction_id'])
})
