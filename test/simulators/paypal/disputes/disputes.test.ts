import t from 'tap'
import { bearer, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { startReceiver } from '../fixtures/receiver.ts'
import { ordersApi, paidOrder } from '../orders-v2/fixtures.ts'

t.test('a capture disputed, updated and lost: CUSTOMER.DISPUTE.* with the dispute, the capture reversed; Sync reads it', async (t) => {
  const api = await ordersApi(t)
  const receiver = await startReceiver(t)
  await api.app.listen({ port: 0, host: '127.0.0.1' })
  api.app.simulator.webhooks.subscribe({ url: receiver.url, clientId: 'test-client', eventTypes: ['CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.RESOLVED', 'PAYMENT.CAPTURE.REVERSED'] })
  const capture = (await paidOrder(api)).purchase_units[0].payments.captures[0]
  const { disputes } = api.app.simulator
  const opened = disputes.open(capture.id, { reason: 'UNAUTHORISED', amountMinor: 500 })
  t.match(opened, {
    dispute_id: /^PP-D-\d{5}$/,
    reason: 'UNAUTHORISED',
    status: 'OPEN',
    dispute_life_cycle_stage: 'INQUIRY',
    dispute_channel: 'INTERNAL',
    dispute_amount: { currency_code: 'USD', value: '5.00' },
    disputed_transactions: [{ seller_transaction_id: capture.id, gross_amount: { value: '7.00' }, invoice_number: 'INV-1', custom: 'payment-1' }]
  })
  const id = opened.dispute_id as string
  t.match(disputes.update(id, { status: 'UNDER_REVIEW', stage: 'CHARGEBACK' }), { status: 'UNDER_REVIEW', dispute_life_cycle_stage: 'CHARGEBACK' })
  t.match(disputes.update(id, {}), { status: 'UNDER_REVIEW' })
  const listed = (await api.call('GET', '/v1/customer/disputes')).json()
  t.match(listed, { items: [{ dispute_id: id, status: 'UNDER_REVIEW' }] })
  t.notOk('disputed_transactions' in listed.items[0], 'the list shows summaries')
  t.equal((await api.call('GET', `/v1/customer/disputes?disputed_transaction_id=${capture.id as string}`)).json().items.length, 1)
  t.equal((await api.call('GET', '/v1/customer/disputes?disputed_transaction_id=OTHER')).json().items.length, 0)
  t.equal((await api.call('GET', '/v1/customer/disputes?page_size=0')).statusCode, 400)
  t.match((await api.call('GET', `/v1/customer/disputes/${id}`)).json(), { dispute_id: id, disputed_transactions: [{ seller_transaction_id: capture.id }] })
  t.equal((await api.call('GET', '/v1/customer/disputes/PP-D-00000')).statusCode, 404)
  const lost = disputes.resolve(id, 'lost')
  t.match(lost, { status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '5.00' } } })
  t.equal(api.app.simulator.orders.capture(capture.id)?.status, 'PARTIALLY_REFUNDED', 'the disputed money is taken back')
  t.throws(() => disputes.update(id, { status: 'OPEN' }), /resolved/)
  t.throws(() => disputes.resolve('NOPE', 'won'), /no dispute/)
  t.equal(disputes.dispute('NOPE'), undefined)
  t.match(disputes.dispute(id), { status: 'RESOLVED' })
  t.throws(() => disputes.open('NOPE'), /no sale or capture/)
  t.throws(() => disputes.open(capture.id, { amountMinor: 800 }), /cannot dispute/)
  await api.app.simulator.webhooks.waitForIdle()
  t.same(receiver.received.map((delivery) => delivery.event.event_type),
    ['CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.UPDATED', 'PAYMENT.CAPTURE.REVERSED', 'CUSTOMER.DISPUTE.RESOLVED'])
  t.match(receiver.received[0]?.event, { resource_type: 'dispute', summary: `A new dispute opened with Case # ${id}`, resource: { dispute_id: id } })

  api.app.simulator.addClient({ clientId: 'other', clientSecret: 'other-secret' })
  const other = { authorization: `Bearer ${api.app.simulator.issueAccessToken('other')}` }
  t.equal((await api.app.inject({ method: 'GET', url: `/v1/customer/disputes/${id}`, headers: other })).statusCode, 404)
  t.same((await api.app.inject({ method: 'GET', url: '/v1/customer/disputes', headers: other })).json().items, [])
})

t.test('a sale disputed and won keeps its money; one lost is reversed (PAYMENT.SALE.REVERSED); nothing left, nothing taken', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth, paymentRequest({ transactions: [{ amount: { total: '7', currency: 'USD' }, invoice_number: 'INV-7', custom: 'payment-7' }] }))
  const { disputes } = app.simulator
  const won = disputes.open(saleId)
  t.match(won, { dispute_amount: { value: '7.00' }, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', disputed_transactions: [{ invoice_number: 'INV-7', custom: 'payment-7' }] })
  const resolved = disputes.resolve(won.dispute_id as string, 'won')
  t.match(resolved, { status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' } })
  t.notOk('amount_refunded' in (resolved.dispute_outcome as object))
  t.equal(app.simulator.sale(saleId)?.state, 'completed')
  const lost = disputes.open(saleId, { stage: 'CHARGEBACK' })
  disputes.resolve(lost.dispute_id as string, 'lost')
  t.match(app.simulator.sale(saleId), { state: 'completed', reason_code: 'BUYER_COMPLAINT' }, 'no `reversed` state in v1: the reason code tells')
  const again = disputes.open(saleId, { amountMinor: 100 })
  disputes.resolve(again.dispute_id as string, 'lost')
  t.equal(app.simulator.webhooks.events().filter((event) => event.event_type === 'PAYMENT.SALE.REVERSED').length, 1, 'a reversed sale has nothing more to take')
})

t.test('an app without the Disputes permission: 403 NOT_AUTHORIZED (PERMISSION_DENIED) on list and show; the webhooks still come', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth)
  const { disputes } = app.simulator
  disputes.setPermission(false)
  const opened = disputes.open(saleId)
  for (const url of ['/v1/customer/disputes', `/v1/customer/disputes?disputed_transaction_id=${saleId}`, `/v1/customer/disputes/${String(opened.dispute_id)}`]) {
    const refused = await app.inject({ url, headers: auth })
    t.equal(refused.statusCode, 403, url)
    t.match(refused.json(), {
      name: 'NOT_AUTHORIZED',
      message: 'Authorization failed due to insufficient permissions.',
      debug_id: String,
      details: [{ issue: 'PERMISSION_DENIED', description: 'You do not have the correct permission for the requested operation.' }]
    })
  }
  t.equal(app.simulator.webhooks.events().filter((event) => event.event_type === 'CUSTOMER.DISPUTE.CREATED').length, 1)
  disputes.setPermission(true)
  t.equal((await app.inject({ url: `/v1/customer/disputes/${String(opened.dispute_id)}`, headers: auth })).statusCode, 200, 'granted again: read')
})
