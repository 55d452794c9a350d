import t from 'tap'
import { bearer, CLIENT, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)

t.test('show a sale', async (t) => {
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other] })
  const auth = await bearer(app)
  const { paymentId, saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '7', currency: 'USD', details: { subtotal: '6', tax: '1' } }))
  const shown = await app.inject({ url: `/v1/payments/sale/${saleId}`, headers: auth })
  t.equal(shown.statusCode, 200)
  t.match(shown.json(), {
    id: saleId, state: 'completed', parent_payment: paymentId, amount: { total: '7.00', currency: 'USD', details: { subtotal: '6.00', tax: '1.00' } }
  })
  t.equal((await app.inject({ url: `/v1/payments/sale/${saleId}`, headers: await bearer(app, other) })).statusCode, 404)
  const unknown = await app.inject({ url: '/v1/payments/sale/NOPE', headers: auth })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().name, 'INVALID_RESOURCE_ID')
})

t.test('partial then full refund', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { paymentId, saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '10', currency: 'EUR' }))
  const refund = async (payload?: Record<string, unknown>): Promise<{ statusCode: number, json: () => any }> =>
    await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, ...(payload === undefined ? {} : { payload }) })

  const partial = await refund({ amount: { total: '2.5', currency: 'EUR' }, description: 'Broken cup', reason: 'damaged', invoice_number: 'R-1' })
  t.equal(partial.statusCode, 201)
  t.match(partial.json(), {
    id: /^[A-Z0-9]{17}$/,
    state: 'completed',
    amount: { total: '2.50', currency: 'EUR' },
    sale_id: saleId,
    parent_payment: paymentId,
    total_refunded_amount: { value: '2.50', currency: 'EUR' },
    description: 'Broken cup',
    reason: 'damaged',
    invoice_number: 'R-1'
  })
  t.same(partial.json().links.map((link: { rel: string }) => link.rel), ['self', 'parent_payment', 'sale'])
  t.equal(app.simulator.sale(saleId)?.state, 'partially_refunded')

  const tooMuch = await refund({ amount: { total: '7.51', currency: 'EUR' } })
  t.equal(tooMuch.statusCode, 400)
  t.match(tooMuch.json(), { name: 'TRANSACTION_REFUSED', message: 'The request was refused' })

  const rest = await refund()
  t.equal(rest.statusCode, 201, 'an empty body refunds what remains')
  t.match(rest.json(), { amount: { total: '7.50' }, total_refunded_amount: { value: '10.00' } })
  t.equal(app.simulator.sale(saleId)?.state, 'refunded')
  t.equal((await refund({})).json().name, 'TRANSACTION_REFUSED', 'nothing left')
  t.equal(app.simulator.counters().refunds, 2)

  const payment = (await app.inject({ url: `/v1/payments/payment/${paymentId}`, headers: auth })).json()
  const related = payment.transactions[0].related_resources
  t.equal(related.length, 3)
  t.equal(related[0].sale.state, 'refunded')
  t.same(related.slice(1).map((resource: { refund: { amount: { total: string } } }) => resource.refund.amount.total), ['2.50', '7.50'])

  const refundId = partial.json().id
  const shown = await app.inject({ url: `/v1/payments/refund/${refundId}`, headers: auth })
  t.equal(shown.statusCode, 200)
  t.equal(shown.json().id, refundId)
  t.equal((await app.inject({ url: '/v1/payments/refund/NOPE', headers: auth })).statusCode, 404)
  const foreignClient = { clientId: 'x', clientSecret: 'y' }
  app.simulator.addClient(foreignClient)
  t.equal((await app.inject({ url: `/v1/payments/refund/${refundId}`, headers: await bearer(app, foreignClient) })).statusCode, 404)
})

t.test('refund validation', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '500', currency: 'JPY' }))
  const cases: Array<[unknown, Array<{ field: string }>]> = [
    [{ amount: { total: '1', currency: 'USD' } }, [{ field: 'amount.currency' }]],
    [{ amount: { total: '1' } }, [{ field: 'amount.currency' }]],
    [{ amount: { currency: 'JPY' } }, [{ field: 'amount.total' }]],
    [{ amount: { total: '1.50', currency: 'JPY' } }, [{ field: 'amount.total' }]],
    [{ amount: { total: '0', currency: 'JPY' } }, [{ field: 'amount.total' }]],
    [{ amount: 'all' }, [{ field: 'amount' }]],
    [{ reason: 'r'.repeat(31), description: 'd'.repeat(256), invoice_number: 'i'.repeat(128) }, [
      { field: 'description' }, { field: 'reason' }, { field: 'invoice_number' }
    ]]
  ]
  for (const [payload, details] of cases) {
    const response = await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: payload as Record<string, unknown> })
    t.equal(response.statusCode, 400)
    t.match(response.json(), { name: 'VALIDATION_ERROR', details })
  }
  const jpy = await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: { amount: { total: '200', currency: 'JPY' } } })
  t.match(jpy.json(), { amount: { total: '200', currency: 'JPY' } })
  t.equal((await app.inject({ method: 'POST', url: '/v1/payments/sale/NOPE/refund', headers: auth, payload: {} })).statusCode, 404)
})

t.test('pending sales settle through the control API', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const cleared = await paidPayment(app, auth, paymentRequest(), 'pending')
  const refundPending = await app.inject({ method: 'POST', url: `/v1/payments/sale/${cleared.saleId}/refund`, headers: auth, payload: {} })
  t.equal(refundPending.json().name, 'TRANSACTION_REFUSED', 'uncleared money cannot be refunded')
  t.match(app.simulator.settleSale(cleared.saleId, 'completed'), { state: 'completed', payment_mode: 'ECHECK' })
  t.notOk('reason_code' in (app.simulator.sale(cleared.saleId) ?? {}))

  const bounced = await paidPayment(app, auth, paymentRequest(), 'pending')
  t.equal(app.simulator.settleSale(bounced.saleId, 'denied').state, 'denied')
  t.throws(() => app.simulator.settleSale(bounced.saleId, 'completed'), /is denied, not pending/)
  t.throws(() => app.simulator.settleSale('NOPE', 'completed'), /no sale NOPE/)
  t.equal(app.simulator.sale('NOPE'), undefined)
  t.equal(app.simulator.payment('NOPE'), undefined)
})
