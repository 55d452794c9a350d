import t from 'tap'
import { GetHumanStatus, Refund, Sync, type Payment } from '../../../../plugins/core/index.ts'
import { approveAndReturn, engineSetup, preparePayment, reload, statusOf, type EngineSetup } from '../fixtures/paywire.ts'
import { GATEWAY, callPaypal, saleOf } from '../fixtures/shop.ts'

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
  t.match(details.paywire_refunds, [{ id: String, state: 'completed', requested: null, amount: { total: '19.99', currency: 'EUR' } }])
  t.same(refundRequests(setup), [{ requestId: details.paywire_refunds[0].requestId, body: {} }])
  t.match(details.paywire_refunds[0].requestId, new RegExp(`^${details.paywire_key as string}-refund-[0-9a-f]{12}$`))
})

t.test('partial refunds: each its own request id, recorded with the refund, amounts formatted from minor units', async (t) => {
  const setup = await engineSetup(t)
  const payment = await paidPayment(setup, { totalAmount: 5000, currencyCode: 'JPY' })
  const gateway = setup.paywire.getGateway(GATEWAY)
  await gateway.execute(new Refund(payment, { amount: 1000 }))
  t.equal(await statusOf(setup.paywire, payment), 'refunded', 'a partly refunded payment reads refunded (README status table)')
  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 1500 }))
  const { details } = await reload(setup.paywire, payment)
  t.equal(saleOf(details).state, 'partially_refunded')
  const [first, second] = details.paywire_refunds
  t.match(details.paywire_refunds, [
    { requestId: String, requested: 1000, currency: 'JPY', state: 'completed', id: String, amount: { total: '1000', currency: 'JPY' } },
    { requestId: String, requested: 1500, state: 'completed', amount: { total: '1500' } }
  ])
  t.not(first.requestId, second.requestId)
  t.same(refundRequests(setup), [
    { requestId: first.requestId, body: { amount: { total: '1000', currency: 'JPY' } } },
    { requestId: second.requestId, body: { amount: { total: '1500', currency: 'JPY' } } }
  ])
  t.same(Object.keys(details.paywire_request_ids), ['create', 'execute'], 'refund ids live with their refunds')

  // What remains: 2500 JPY. More is refused by PayPal, with its name and debug id.
  const refused = await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 3000 })).catch((error: unknown) => error)
  t.match(refused, { code: 'PAYWIRE_ERR_PROVIDER', statusCode: 502, providerCode: 'TRANSACTION_REFUSED', debugId: /^[0-9a-f]{13}$/, message: /TRANSACTION_REFUSED/ })
  const afterRefusal = (await reload(setup.paywire, payment)).details
  t.match(afterRefusal.error, { name: 'TRANSACTION_REFUSED', debug_id: (refused as { debugId: string }).debugId }, 'kept in the details')
  t.equal(saleOf(afterRefusal).state, 'partially_refunded', 'nothing else changed')
  t.match(afterRefusal.paywire_refunds[2], { requested: 3000, state: 'refused', error: { name: 'TRANSACTION_REFUSED' } }, 'the refused refund keeps its id, marked refused')

  await gateway.execute(new Refund(await reload(setup.paywire, payment)))
  const final = (await reload(setup.paywire, payment)).details
  t.equal(saleOf(final).state, 'refunded')
  t.notOk('error' in final, 'the refusal is cleared once a refund worked')
  t.equal(setup.paypal.simulator.counters().refunds, 3)
  t.equal(new Set(refundRequests(setup).map((request) => request.requestId)).size, 4, 'the refused id was not used again')
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

const REFUND_PATH = '/v1/payments/sale/*/refund'

t.test('a refund whose answer was lost is settled first, with its own id; a different refund then gets a new id', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const payment = await paidPayment(setup)
  const gateway = setup.paywire.getGateway(GATEWAY)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: REFUND_PATH })
  await t.rejects(gateway.execute(new Refund(payment, { amount: 500 })), { code: 'PAYWIRE_ERR_PROVIDER' })
  const lost = (await reload(setup.paywire, payment)).details.paywire_refunds
  t.match(lost, [{ requested: 500, state: 'pending', requestId: String }], 'recorded before PayPal was called, pending since')
  t.notOk('id' in lost[0])

  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 300 }))
  const { details } = await reload(setup.paywire, payment)
  t.match(details.paywire_refunds, [{ requested: 500, state: 'completed', amount: { total: '5.00' } }, { requested: 300, state: 'completed', amount: { total: '3.00' } }])
  const ids = refundRequests(setup).map((request) => request.requestId)
  t.same(ids, [lost[0].requestId, lost[0].requestId, details.paywire_refunds[1].requestId], 'settled with its own id, then the new refund with a new one')
  t.not(ids[0], ids[2])
  t.equal(setup.paypal.simulator.counters().refunds, 2, 'both refunds moved money, once each')
  t.equal(saleOf(details).state, 'partially_refunded')
})

t.test('a pending refund PayPal still cannot answer stops the next refund; once it answers, the same refund is the answer', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const payment = await paidPayment(setup)
  const gateway = setup.paywire.getGateway(GATEWAY)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: REFUND_PATH, times: 2 })
  await t.rejects(gateway.execute(new Refund(payment, { amount: 500 })), { code: 'PAYWIRE_ERR_PROVIDER' })
  await t.rejects(gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 300 })), { code: 'PAYWIRE_ERR_PROVIDER' })
  t.match((await reload(setup.paywire, payment)).details.paywire_refunds, [{ requested: 500, state: 'pending' }], 'no second refund beside an open one')

  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 500 }))
  const { details } = await reload(setup.paywire, payment)
  t.match(details.paywire_refunds, [{ requested: 500, state: 'completed' }])
  t.equal(details.paywire_refunds.length, 1)
  t.equal(setup.paypal.simulator.counters().refunds, 1)
  t.equal(new Set(refundRequests(setup).map((request) => request.requestId)).size, 1)
})

t.test('a pending full refund refused when settled: the refusal is the answer to the same refund; another refund finds nothing left', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const payment = await paidPayment(setup)
  const gateway = setup.paywire.getGateway(GATEWAY)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: REFUND_PATH })
  await t.rejects(gateway.execute(new Refund(payment)), { code: 'PAYWIRE_ERR_PROVIDER' })
  // Meanwhile the whole sale was refunded in PayPal's dashboard.
  t.equal((await callPaypal(setup, 'POST', `/v1/payments/sale/${saleOf(payment.details).id as string}/refund`, {})).status, 201)

  await t.rejects(gateway.execute(new Refund(await reload(setup.paywire, payment))), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'TRANSACTION_REFUSED' })
  const { details } = await reload(setup.paywire, payment)
  t.match(details.paywire_refunds, [{ requested: null, state: 'refused', error: { name: 'TRANSACTION_REFUSED' } }])
  t.equal(await statusOf(setup.paywire, payment), 'refunded', 'PayPal\'s view was taken meanwhile')
  await t.rejects(gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 100 })), { code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
  t.equal(setup.paypal.simulator.counters().refunds, 1, 'the dashboard\'s only')
})

t.test('an amount PayPal cannot take is refused before anything is recorded', async (t) => {
  const setup = await engineSetup(t)
  const payment = await paidPayment(setup, { totalAmount: 500000, currencyCode: 'HUF' })
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Refund(payment, { amount: 150050 })), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.same((await reload(setup.paywire, payment)).details.paywire_refunds, [])
  t.same(refundRequests(setup), [])
})

t.test('a refund PayPal answers pending counts once its money moves; a failed or cancelled one never counts', async (t) => {
  const setup = await engineSetup(t)
  const payment = await paidPayment(setup)
  const gateway = setup.paywire.getGateway(GATEWAY)
  const amountsOf = async (): Promise<unknown> => {
    const status = new GetHumanStatus(await reload(setup.paywire, payment))
    await gateway.execute(status)
    return status.amounts
  }
  setup.paypal.simulator.queueRefundOutcome('pending')
  await gateway.execute(new Refund(payment, { amount: 500 }))
  let { details } = await reload(setup.paywire, payment)
  t.match(details.paywire_refunds, [{ state: 'processing', refund_state: 'pending', requested: 500 }])
  t.same(await amountsOf(), { captured: 1999, refunded: 0, reversed: 0 }, 'an eCheck refund: nothing went back yet')

  setup.paypal.simulator.settleRefund(details.paywire_refunds[0].id, 'completed')
  await gateway.execute(new Sync(await reload(setup.paywire, payment)))
  t.same(await amountsOf(), { captured: 1999, refunded: 500, reversed: 0 }, 'counted once PayPal lists it completed')

  setup.paypal.simulator.queueRefundOutcome('failed')
  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 300 }))
  setup.paypal.simulator.queueRefundOutcome('cancelled')
  await gateway.execute(new Refund(await reload(setup.paywire, payment), { amount: 200 }))
  ;({ details } = await reload(setup.paywire, payment))
  t.match(details.paywire_refunds.slice(1), [{ state: 'failed', refund_state: 'failed' }, { state: 'failed', refund_state: 'cancelled' }])
  t.same(await amountsOf(), { captured: 1999, refunded: 500, reversed: 0 }, 'failed and cancelled refunds moved nothing')
  await gateway.execute(new Sync(await reload(setup.paywire, payment)))
  t.same(await amountsOf(), { captured: 1999, refunded: 500, reversed: 0 }, 'nor after a Sync lists them')
})
