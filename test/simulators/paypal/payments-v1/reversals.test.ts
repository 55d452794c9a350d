import t from 'tap'
import { bearer, CLIENT, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { startReceiver } from '../fixtures/receiver.ts'

/*
 * PAYMENT.SALE.REVERSED as PayPal's sample event has it (https://developer.paypal.com/api/rest/webhooks/event-names/#sales):
 * the reversal's id, create_time, state completed, a negative amount and a self link to /v1/payments/refund/{id};
 * the sale keeps a state payments_payment_v1.json lists (there is no `reversed`) and says why in `reason_code`.
 */
t.test('a chargeback reverses a partially refunded sale: what remains goes back, with a signed PAYMENT.SALE.REVERSED', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t, { webhooks: [{ url: receiver.url, eventTypes: ['PAYMENT.SALE.REVERSED'] }] })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const auth = { ...await bearer(app), host: new URL(app.listeningOrigin).host }
  const { paymentId, saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '10', currency: 'EUR' }))
  const refunded = await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: { amount: { total: '2.5', currency: 'EUR' } } })
  t.equal(refunded.statusCode, 201)

  const reversed = app.simulator.reverseSale(saleId)
  t.match(reversed, { id: saleId, state: 'partially_refunded', reason_code: 'CHARGEBACK', amount: { total: '10.00', currency: 'EUR' } })
  await app.simulator.webhooks.waitForIdle()

  t.equal(receiver.received.length, 1)
  const event = receiver.received[0]?.event
  const reversalId = (event?.resource as { id: string }).id
  t.match(event, {
    id: /^WH-/,
    event_version: '1.0',
    resource_type: 'sale',
    event_type: 'PAYMENT.SALE.REVERSED',
    summary: 'A 7.50 EUR sale payment was reversed',
    resource: {
      id: /^[A-Z0-9]{17}$/,
      state: 'completed',
      amount: { total: '-7.50', currency: 'EUR' },
      links: [{ rel: 'self', method: 'GET', href: `${app.listeningOrigin}/v1/payments/refund/${reversalId}` }]
    }
  })
  t.same(Object.keys(event?.resource ?? {}).sort(), ['amount', 'create_time', 'id', 'links', 'state'], 'the sample\'s fields, no others')
  t.not(reversalId, saleId, 'the reversal is a transaction of its own')
  const [delivery] = app.simulator.webhooks.deliveries({ eventId: event?.id })
  t.match(delivery?.headers, { 'paypal-auth-algo': 'SHA256withRSA', 'paypal-transmission-sig': String }, 'signed like every event')

  const sale = (await app.inject({ url: `/v1/payments/sale/${saleId}`, headers: auth })).json()
  t.match(sale, { state: 'partially_refunded', reason_code: 'CHARGEBACK' })
  const payment = (await app.inject({ url: `/v1/payments/payment/${paymentId}`, headers: auth })).json()
  t.equal(payment.state, 'approved', 'the payment itself stays approved')
  t.match(payment.transactions[0].related_resources, [{ sale: { state: 'partially_refunded', reason_code: 'CHARGEBACK' } }, { refund: { amount: { total: '2.50' } } }])
  const shown = await app.inject({ url: `/v1/payments/refund/${reversalId}`, headers: auth })
  t.equal(shown.statusCode, 200, 'its self link answers')
  t.match(shown.json(), { id: reversalId, state: 'completed', amount: { total: '-7.50', currency: 'EUR' }, sale_id: saleId, parent_payment: paymentId },
    'as a v1 refund: where the event is silent, the reversal names its sale and payment')

  const refundAfter = await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: {} })
  t.equal(refundAfter.json().name, 'TRANSACTION_REFUSED', 'nothing is left to refund')
  t.equal(app.simulator.counters().reversals, 1)
})

t.test('a completed sale is reversed in full, with the reason given', async (t) => {
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other] })
  const auth = await bearer(app)
  const { saleId } = await paidPayment(app, auth, paymentRequest({}, { total: '500', currency: 'JPY' }))
  t.match(app.simulator.reverseSale(saleId, { reasonCode: 'BUYER_COMPLAINT' }), { state: 'completed', reason_code: 'BUYER_COMPLAINT' })
  const [event] = app.simulator.webhooks.events().filter((candidate) => candidate.event_type === 'PAYMENT.SALE.REVERSED')
  t.match(event, { summary: 'A 500 JPY sale payment was reversed', resource: { amount: { total: '-500', currency: 'JPY' } } })
  const reversalId = event?.resource.id ?? ''
  t.equal((await app.inject({ url: `/v1/payments/refund/${reversalId}`, headers: await bearer(app, other) })).statusCode, 404, 'another merchant\'s reversal is unknown')
})

t.test('only completed and partially refunded sales can be reversed', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const pending = await paidPayment(app, auth, paymentRequest(), 'pending')
  t.throws(() => app.simulator.reverseSale(pending.saleId), /is pending; only a completed or partially refunded sale/)
  const refunded = await paidPayment(app, auth)
  await app.inject({ method: 'POST', url: `/v1/payments/sale/${refunded.saleId}/refund`, headers: auth, payload: {} })
  t.throws(() => app.simulator.reverseSale(refunded.saleId), /is refunded/)
  const completed = await paidPayment(app, auth)
  t.throws(() => app.simulator.reverseSale(completed.saleId, { reasonCode: 'ECHECK' as 'REFUND' }), { name: 'TypeError' })
  app.simulator.reverseSale(completed.saleId)
  t.throws(() => app.simulator.reverseSale(completed.saleId), /was reversed already/)
  const refundAfter = await app.inject({ method: 'POST', url: `/v1/payments/sale/${completed.saleId}/refund`, headers: auth, payload: { amount: { total: '1', currency: 'USD' } } })
  t.equal(refundAfter.json().name, 'TRANSACTION_REFUSED', 'a reversed sale reads completed, yet has nothing left to refund')
  t.throws(() => app.simulator.reverseSale('NOPE'), /no sale NOPE/)
  t.equal(app.simulator.counters().reversals, 1)
})
