import t from 'tap'
import { Refund, Sync, type Payment } from '../../../../plugins/core/index.ts'
import { approveAndReturn, engineSetup, preparePayment, reload, statusOf, type EngineSetup } from '../fixtures/paywire.ts'
import { GATEWAY, saleOf } from '../fixtures/shop.ts'

async function paidPayment (setup: EngineSetup, fields: Partial<Payment> = {}, outcome: 'completed' | 'pending' = 'completed'): Promise<Payment> {
  const prepared = await preparePayment(setup.paywire, fields)
  await approveAndReturn(setup, prepared, outcome)
  return await reload(setup.paywire, prepared.payment)
}

function refundRequests (setup: EngineSetup): Array<{ requestId: string | undefined, body: unknown }> {
  return setup.http.requests
    .filter((request) => request.url.endsWith('/refund'))
    .map((request) => ({ requestId: request.headers?.['paypal-request-id'], body: JSON.parse(request.body ?? '{}') }))
}

t.test('a full refund refunds what the sale holds; the status reads refunded', async (t) => {
  const setup = await engineSetup(t)
  const payment = await paidPayment(setup)
  await setup.paywire.getGateway(GATEWAY).execute(new Refund(payment))
  t.equal(await statusOf(setup.paywire, payment), 'refunded')
  const { details } = await reload(setup.paywire, payment)
  t.equal(saleOf(details).state, 'refunded')
  t.match(details.paywire_refunds, [{ id: String, state: 'completed', amount: { total: '19.99', currency: 'EUR' } }])
  t.same(refundRequests(setup), [{ requestId: `${details.paywire_key as string}-refund-0`, body: {} }])
})

t.test('partial refunds: each its own request id (refund-0, refund-1), amounts formatted from minor units', async (t) => {
  const setup = await engineSetup(t)
  const payment = await paidPayment(setup, { totalAmount: 5000, currencyCode: 'JPY' })
  const gateway = setup.paywire.getGateway(GATEWAY)
  await gateway.execute(new Refund(payment, { amount: 1000 }))
  t.equal(await statusOf(setup.paywire, payment), 'refunded', 'a partly refunded payment reads refunded (README status table)')
  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 1500 }))
  const { details } = await reload(setup.paywire, payment)
  t.equal(saleOf(details).state, 'partially_refunded')
  t.same(refundRequests(setup), [
    { requestId: `${details.paywire_key as string}-refund-0`, body: { amount: { total: '1000', currency: 'JPY' } } },
    { requestId: `${details.paywire_key as string}-refund-1`, body: { amount: { total: '1500', currency: 'JPY' } } }
  ])
  t.same(details.paywire_request_ids, {
    create: `${details.paywire_key as string}-create`,
    execute: `${details.paywire_key as string}-execute`,
    'refund-0': `${details.paywire_key as string}-refund-0`,
    'refund-1': `${details.paywire_key as string}-refund-1`
  })

  // What remains: 2500 JPY. More is refused by PayPal, with its name and debug id.
  const refused = await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 3000 })).catch((error: unknown) => error)
  t.match(refused, { code: 'PAYWIRE_ERR_PROVIDER', statusCode: 502, providerCode: 'TRANSACTION_REFUSED', debugId: /^[0-9a-f]{13}$/, message: /TRANSACTION_REFUSED/ })
  const afterRefusal = (await reload(setup.paywire, payment)).details
  t.match(afterRefusal.error, { name: 'TRANSACTION_REFUSED', debug_id: (refused as { debugId: string }).debugId }, 'kept in the details')
  t.equal(saleOf(afterRefusal).state, 'partially_refunded', 'nothing else changed')

  await gateway.execute(new Refund(await reload(setup.paywire, payment)))
  const final = (await reload(setup.paywire, payment)).details
  t.equal(saleOf(final).state, 'refunded')
  t.notOk('error' in final, 'the refusal is cleared once a refund worked')
  t.equal(setup.paypal.simulator.counters().refunds, 3)
})

t.test('a refund whose answer was lost is retried with the same id and refunds once', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const payment = await paidPayment(setup)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: '/v1/payments/sale/*/refund' })
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Refund(payment, { amount: 500 })), { code: 'PAYWIRE_ERR_PROVIDER' })
  await setup.paywire.getGateway(GATEWAY).execute(new Refund(await reload(setup.paywire, payment), { amount: 500 }))
  const requests = refundRequests(setup)
  t.equal(requests.length, 2)
  t.equal(requests[0]?.requestId, requests[1]?.requestId)
  t.equal(setup.paypal.simulator.counters().refunds, 1, 'refunded once')
  t.match((await reload(setup.paywire, payment)).details.paywire_refunds, [{ amount: { total: '5.00' } }])
})

t.test('a refund done at PayPal whose follow-up look-up fails still succeeds; the status catches up with a sync', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const payment = await paidPayment(setup)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v1/payments/payment/*' })
  await setup.paywire.getGateway(GATEWAY).execute(new Refund(payment))
  const { details } = await reload(setup.paywire, payment)
  t.match(details.paywire_refunds, [{ state: 'completed' }], 'the refund is on record: the shop never refunds it again')
  t.equal(setup.paypal.simulator.counters().refunds, 1)
  await setup.paywire.getGateway(GATEWAY).execute(new Sync(await reload(setup.paywire, payment)))
  t.equal(await statusOf(setup.paywire, payment), 'refunded')
})

t.test('nothing to refund: a coded 409 and PayPal is not called', async (t) => {
  const setup = await engineSetup(t)
  const gateway = setup.paywire.getGateway(GATEWAY)
  const fresh = await preparePayment(setup.paywire)
  await t.rejects(gateway.execute(new Refund(fresh.payment)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED', statusCode: 409, message: 'Refund is not possible for a payment in status "new".' })
  const pending = await paidPayment(setup, {}, 'pending')
  await t.rejects(gateway.execute(new Refund(pending)), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED', message: /status "pending"/ })
  const refunded = await paidPayment(setup)
  await gateway.execute(new Refund(refunded))
  await t.rejects(gateway.execute(new Refund(await reload(setup.paywire, refunded))), { message: /status "refunded"/ })
  t.equal(refundRequests(setup).length, 1)
})
