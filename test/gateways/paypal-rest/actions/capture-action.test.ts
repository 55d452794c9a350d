import t from 'tap'
import { Amount, PaymentDetails, RedirectUrls, Transaction } from '../../../../gateways/paypal-rest/index.ts'
import { Capture, HttpRedirect, Payment } from '../../../../plugins/core/index.ts'
import {
  approveAndReturn, capture, engineSetup, paypalId, preparePayment, reload, statusOf, toApproval
} from '../fixtures/paywire.ts'
import { GATEWAY, callPaypal } from '../fixtures/shop.ts'

const paypalCalls = (setup: { http: { requests: unknown[] } }) => setup.http.requests.length

t.test('no PayPal payment yet: create it with the capture URL as return URL and send the buyer to PayPal', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  const approvalUrl = await toApproval(setup.paywire, prepared.token)
  t.match(approvalUrl, `${setup.endpoint}/cgi-bin/webscr?cmd=_express-checkout&token=EC-`)
  const { details } = await reload(setup.paywire, prepared.payment)
  t.match(details, {
    id: /^PAYID-/,
    state: 'created',
    redirect_urls: { return_url: prepared.token.targetUrl, cancel_url: `${prepared.token.targetUrl}&cancelled=1` },
    paywire_request_ids: { create: /-create$/ }
  })
  t.equal(await statusOf(setup.paywire, prepared.payment), 'pending')

  // A reload or a bookmark of the capture URL: the same PayPal page, no second payment.
  t.equal(await toApproval(setup.paywire, prepared.token), approvalUrl)
  t.equal(setup.paypal.simulator.counters().paymentsCreated, 1)
})

t.test('back from PayPal with paymentId and PayerID: executed once; the buyer coming back again changes nothing', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  t.equal(await approveAndReturn(setup, prepared), undefined, 'no reply: the route goes on to the done URL')
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
  const { details } = await reload(setup.paywire, prepared.payment)
  t.match(details, { state: 'approved', paywire_request_ids: { execute: /-execute$/ } })

  const calls = paypalCalls(setup)
  t.equal(await capture(setup.paywire, prepared.token, { paymentId: details.id, PayerID: details.payer.payer_info.payer_id }), undefined)
  t.equal(paypalCalls(setup), calls, 'PayPal was not called again')
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('a return that is not PayPal\'s (no PayerID, or another payment\'s id) sends the buyer back to PayPal', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  const approvalUrl = await toApproval(setup.paywire, prepared.token)
  const { payerId } = setup.paypal.simulator.approve(await paypalId(setup.paywire, prepared.payment))
  const notFromPaypal: Array<Record<string, string>> = [{ paymentId: 'PAYID-SOMETHINGELSE000000000000', PayerID: payerId }, { PayerID: '' }, {}]
  for (const query of notFromPaypal) {
    const reply = await capture(setup.paywire, prepared.token, query)
    t.ok(reply instanceof HttpRedirect && reply.url === approvalUrl, JSON.stringify(query))
  }
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 0)
  t.equal(await capture(setup.paywire, prepared.token, { PayerID: payerId }), undefined, 'PayerID alone is enough')
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
})

t.test('?cancelled=1 cancels without calling PayPal, before or after the payment was created', async (t) => {
  const setup = await engineSetup(t)
  const created = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, created.token)
  const calls = paypalCalls(setup)
  t.equal(await capture(setup.paywire, created.token, { cancelled: '1', token: 'EC-1' }), undefined)
  t.equal(await statusOf(setup.paywire, created.payment), 'canceled')
  const fresh = await preparePayment(setup.paywire)
  await capture(setup.paywire, fresh.token, { cancelled: '1' })
  t.equal(await statusOf(setup.paywire, fresh.payment), 'canceled')
  t.equal(paypalCalls(setup), calls)
  t.equal(await capture(setup.paywire, fresh.token), undefined, 'a canceled payment is never created afterwards')
  t.equal(setup.paypal.simulator.counters().paymentsCreated, 1)
})

t.test('a declined instrument: failed, with PayPal\'s error kept', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  t.equal(await approveAndReturn(setup, prepared, 'declined'), undefined)
  t.equal(await statusOf(setup.paywire, prepared.payment), 'failed')
  t.match((await reload(setup.paywire, prepared.payment)).details.error, { name: 'INSTRUMENT_DECLINED', debug_id: /^[0-9a-f]{13}$/ })
})

t.test('a payment PayPal refuses to create: failed with PayPal\'s details, and no redirect', async (t) => {
  const setup = await engineSetup(t)
  // Details that do not add up: only PayPal checks them.
  const prepared = await preparePayment(setup.paywire, { details: { transactions: [{ amount: { total: '19.99', currency: 'EUR', details: { subtotal: '5.00' } } }] } })
  t.equal(await capture(setup.paywire, prepared.token), undefined)
  t.equal(await statusOf(setup.paywire, prepared.payment), 'failed')
  t.match((await reload(setup.paywire, prepared.payment)).details.error, { name: 'VALIDATION_ERROR', details: [{ field: String, issue: String }] })
})

t.test('no answer to execute even after retries: PayPal\'s view decides', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 1 } })
  const executeFaults = { method: 'POST', path: '/v1/payments/payment/*/execute', times: 2 }

  const executed = await preparePayment(setup.paywire)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', ...executeFaults })
  t.equal(await approveAndReturn(setup, executed), undefined, 'executed at PayPal: taken, the buyer sees done')
  t.equal(await statusOf(setup.paywire, executed.payment), 'captured')
  t.notOk('error' in (await reload(setup.paywire, executed.payment)).details)

  const notExecuted = await preparePayment(setup.paywire)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, when: 'before', ...executeFaults })
  await t.rejects(approveAndReturn(setup, notExecuted), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'SERVICE_UNAVAILABLE' })
  t.equal(await statusOf(setup.paywire, notExecuted.payment), 'pending', 'not executed at PayPal: nothing marked')

  const unknown = await preparePayment(setup.paywire)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, when: 'before', ...executeFaults })
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 500, method: 'GET', path: '/v1/payments/payment/*', times: 2 })
  await t.rejects(approveAndReturn(setup, unknown), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'SERVICE_UNAVAILABLE' }, 'the look-up failing too leaves the first error standing')
  t.equal((await reload(setup.paywire, unknown.payment)).details.state, 'created')
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('PAYMENT_ALREADY_DONE whose look-up fails: the error is thrown, the payment is not marked failed', async (t) => {
  const setup = await engineSetup(t, { config: { 'http.Retry': 0 } })
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const paymentId = await paypalId(setup.paywire, prepared.payment)
  const { payerId } = setup.paypal.simulator.approve(paymentId)
  const elsewhere = await callPaypal(setup, 'POST', `/v1/payments/payment/${paymentId}/execute`, { payer_id: payerId })
  t.equal(elsewhere.status, 200)
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v1/payments/payment/*' })
  await t.rejects(capture(setup.paywire, prepared.token, { paymentId, PayerID: payerId }), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'SERVICE_UNAVAILABLE' })
  t.equal((await reload(setup.paywire, prepared.payment)).details.state, 'created')
  t.equal(await capture(setup.paywire, prepared.token, { paymentId, PayerID: payerId }), undefined, 'once PayPal answers, it is taken')
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
})

t.test('the REST details record with its own redirect URLs needs no token; direct cards are not supported', async (t) => {
  const setup = await engineSetup(t)
  const details = new PaymentDetails()
  details.redirect_urls = new RedirectUrls('https://shop.example/back', 'https://shop.example/back?cancelled=1')
  details.transactions = [new Transaction(new Amount('USD', '3.50'), 'Pen')]
  await setup.paywire.getStorage(PaymentDetails).update(details)
  const reply = await setup.paywire.getGateway(GATEWAY).execute(new Capture(details), { catchReply: true })
  t.ok(reply instanceof HttpRedirect)
  t.match(setup.paypal.simulator.payment(details.id as string), { state: 'created', transactions: [{ amount: { total: '3.50', currency: 'USD' } }] })

  const noPayer = Object.assign(new PaymentDetails(), { redirect_urls: details.redirect_urls, transactions: details.transactions })
  Reflect.deleteProperty(noPayer, 'payer')
  await setup.paywire.getStorage(PaymentDetails).update(noPayer)
  t.equal(await setup.paywire.getGateway(GATEWAY).execute(new Capture(noPayer), { catchReply: true }), undefined, 'without a payer it is taken as a wallet payment')
  t.match(noPayer.error, { name: 'VALIDATION_ERROR' }, 'and PayPal\'s validation decides')

  const card = new PaymentDetails()
  card.payer.payment_method = 'credit_card'
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Capture(card)), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED' })
})

t.test('capturing a Payment without its capture token is a coded error (PayPal needs the URL to send the buyer back to)', async (t) => {
  const setup = await engineSetup(t)
  const { payment } = await preparePayment(setup.paywire)
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Capture(payment)), { code: 'PAYWIRE_ERR_TOKEN_REQUIRED' })
  t.equal(setup.paypal.simulator.counters().paymentsCreated, 0)
  t.ok((await setup.paywire.getStorage(Payment).find(payment.id as string))?.details.intent === 'sale', 'converted, not created')
})

t.test('a refused execute the buyer can still put right keeps the payment pending and sends the buyer back to PayPal', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  const approvalUrl = await toApproval(setup.paywire, prepared.token)
  const paymentId = await paypalId(setup.paywire, prepared.payment)

  // An early (forged) return: PayPal has no approval yet.
  const early = await capture(setup.paywire, prepared.token, { paymentId, PayerID: 'FORGED0000000' })
  t.ok(early instanceof HttpRedirect)
  t.equal((early as HttpRedirect).url, approvalUrl, 'back to PayPal\'s page')
  const afterEarly = (await reload(setup.paywire, prepared.payment)).details
  t.equal(await statusOf(setup.paywire, prepared.payment), 'pending')
  t.match(afterEarly.error, { name: 'PAYMENT_NOT_APPROVED_FOR_EXECUTION' }, 'the refusal is recorded')
  const refusedId = afterEarly.paywire_refused_request_ids[0]
  t.match(refusedId, /-execute$/)
  t.not(afterEarly.paywire_request_ids.execute, refusedId, 'the refused id is never sent again')

  // The buyer approves; a wrong PayerID still comes first.
  const { payerId } = setup.paypal.simulator.approve(paymentId)
  t.match(await capture(setup.paywire, prepared.token, { paymentId, PayerID: 'WRONG00000000' }), { url: approvalUrl })
  t.match((await reload(setup.paywire, prepared.payment)).details.error, { name: 'INVALID_PAYER_ID' })

  t.equal(await capture(setup.paywire, prepared.token, { paymentId, PayerID: payerId }), undefined)
  const paid = (await reload(setup.paywire, prepared.payment)).details
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
  t.notOk('error' in paid)
  const executeIds = setup.http.requests.filter((request) => request.url.endsWith('/execute')).map((request) => request.headers?.['paypal-request-id'])
  t.equal(new Set(executeIds).size, 3, 'each refused attempt had its own id')
  t.equal(executeIds.at(-1), paid.paywire_request_ids.execute)
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('a refusal of that kind without an approval link is thrown: nothing is marked', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const payment = await reload(setup.paywire, prepared.payment)
  payment.details.links = []
  await setup.paywire.getStorage(Payment).update(payment)
  await t.rejects(capture(setup.paywire, prepared.token, { paymentId: payment.details.id, PayerID: 'EARLY00000000' }), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'PAYMENT_NOT_APPROVED_FOR_EXECUTION' })
  t.equal(await statusOf(setup.paywire, prepared.payment), 'pending')
})

t.test('DUPLICATE_REQUEST_ID on execute means PayPal knows an earlier call: its outcome is looked up', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const paymentId = await paypalId(setup.paywire, prepared.payment)
  const { payerId } = setup.paypal.simulator.approve(paymentId)
  const payment = await reload(setup.paywire, prepared.payment)
  // Another process executed with this payment's stored id, and its answer never came back here.
  const executed = await callPaypalWithId(setup, paymentId, payerId, `${payment.details.paywire_key as string}-execute`)
  t.equal(executed, 200)
  t.equal(await capture(setup.paywire, prepared.token, { paymentId, PayerID: `${payerId}X` }), undefined)
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 1)
})

async function callPaypalWithId (setup: Awaited<ReturnType<typeof engineSetup>>, paymentId: string, payerId: string, requestId: string): Promise<number> {
  const response = await fetch(`${setup.endpoint}/v1/payments/payment/${paymentId}/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.paypal.simulator.issueAccessToken(setup.client.clientId)}`, 'content-type': 'application/json', 'paypal-request-id': requestId },
    body: JSON.stringify({ payer_id: payerId })
  })
  await response.arrayBuffer()
  return response.status
}
