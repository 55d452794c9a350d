import t from 'tap'
import { createOrder, orderRequest, ordersApi, paidOrder } from './fixtures.ts'

const UNIT = "/purchase_units/@reference_id=='default'"

t.test('PATCH an order before it completes: 204, the new amount and fields are what the buyer pays', async (t) => {
  const api = await ordersApi(t)
  const order = await createOrder(api)
  const patch = async (id: string, body: unknown) => await api.app.inject({ method: 'PATCH', url: `/v2/checkout/orders/${id}`, headers: api.auth, payload: body as never })
  const done = await patch(order.id, [
    { op: 'replace', path: `${UNIT}/amount`, value: { currency_code: 'USD', value: '9.00', breakdown: { item_total: { currency_code: 'USD', value: '7.00' }, shipping: { currency_code: 'USD', value: '2.00' } } } },
    { op: 'replace', path: `${UNIT}/invoice_id`, value: 'INV-NEW' },
    { op: 'remove', path: `${UNIT}/custom_id` },
    { op: 'add', path: `${UNIT}/description`, value: 'Two mugs' },
    { op: 'add', path: `${UNIT}/shipping/name`, value: { full_name: 'Sim Buyer' } },
    { op: 'replace', path: '/intent', value: 'AUTHORIZE' }
  ])
  t.equal(done.statusCode, 204)
  t.equal(done.body, '')
  const current = (await api.call('GET', `/v2/checkout/orders/${order.id}`)).json()
  t.match(current, { intent: 'AUTHORIZE', purchase_units: [{ amount: { value: '9.00' }, invoice_id: 'INV-NEW', description: 'Two mugs', shipping: { name: { full_name: 'Sim Buyer' } } }] })
  t.notOk('custom_id' in current.purchase_units[0])
  t.equal(api.app.simulator.orders.counters().ordersUpdated, 1)

  const refusals: Array<[unknown, number, string]> = [
    [{}, 400, 'MALFORMED_REQUEST_JSON'],
    [[], 400, 'MALFORMED_REQUEST_JSON'],
    [['nope'], 400, 'INVALID_PARAMETER_SYNTAX'],
    [[{ op: 'move', path: '/intent' }], 400, 'INVALID_PARAMETER_VALUE'],
    [[{ op: 'replace' }], 422, 'PATCH_PATH_REQUIRED'],
    [[{ op: 'replace', path: '/intent' }], 422, 'PATCH_VALUE_REQUIRED'],
    [[{ op: 'add', path: '/intent', value: 'CAPTURE' }], 400, 'INVALID_PATCH_OPERATION'],
    [[{ op: 'replace', path: 'intent', value: 'CAPTURE' }], 422, 'INVALID_JSON_POINTER_FORMAT'],
    [[{ op: 'replace', path: '/payer', value: {} }], 400, 'FIELD_NOT_PATCHABLE'],
    [[{ op: 'replace', path: "/purchase_units/@reference_id=='other'/invoice_id", value: 'X' }], 422, 'REFERENCE_ID_NOT_FOUND'],
    [[{ op: 'remove', path: `${UNIT}/amount` }], 400, 'FIELD_NOT_PATCHABLE'],
    [[{ op: 'add', path: `${UNIT}/invoice_id`, value: 'X' }], 400, 'INVALID_PATCH_OPERATION'],
    [[{ op: 'replace', path: `${UNIT}/custom_id`, value: 'X' }], 400, 'INVALID_PATCH_OPERATION'],
    [[{ op: 'replace', path: `${UNIT}/amount`, value: { currency_code: 'USD', value: '8.00', breakdown: { item_total: { currency_code: 'USD', value: '7.00' } } } }], 422, 'AMOUNT_MISMATCH'],
    [[{ op: 'replace', path: '/intent', value: 'SALE' }], 400, 'INVALID_PARAMETER_VALUE']
  ]
  for (const [body, status, issue] of refusals) {
    const answer = await patch(order.id, body)
    t.equal(answer.statusCode, status, issue)
    t.equal(answer.json().details[0].issue, issue)
  }
  t.equal(api.app.simulator.orders.counters().ordersUpdated, 1, 'all or nothing')
  t.equal((await api.call('GET', `/v2/checkout/orders/${order.id}`)).json().purchase_units[0].invoice_id, 'INV-NEW')

  api.app.simulator.orders.approve(order.id)
  t.equal((await patch(order.id, [{ op: 'replace', path: `${UNIT}/invoice_id`, value: 'INV-APPROVED' }])).statusCode, 204, 'an APPROVED order can still change')
  const paid = await paidOrder(api, orderRequest({}, { invoice_id: 'INV-3' }))
  t.match((await patch(paid.id, [{ op: 'replace', path: `${UNIT}/invoice_id`, value: 'X' }])).json(), { details: [{ issue: 'ORDER_ALREADY_COMPLETED' }] })
  t.equal((await patch('NOPE', [{ op: 'replace', path: '/intent', value: 'CAPTURE' }])).statusCode, 404)
})
