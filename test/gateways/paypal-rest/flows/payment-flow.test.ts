import t from 'tap'
import { recordingProxy, type Teardown } from '../fixtures/recorders.ts'
import {
  GATEWAY, callPaypal, checkout, comeBack, decideOnApprovalPage, pay, readDone, saleOf, startJourney, startShop, storedPayment, visit
} from '../fixtures/shop.ts'

t.test('a Payment: shop → capture → PayPal\'s approval page (its form) → back to capture → done reads captured', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop, { totalAmount: 1999, currencyCode: 'EUR', description: 'Mug' })
  t.match(journey.approvalUrl, `${shop.endpoint}/cgi-bin/webscr?cmd=_express-checkout&token=EC-`)
  t.match((await visit(journey.approvalUrl)).body, '19.99 EUR', 'PayPal shows the amount formatted from minor units')
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  t.ok(returnUrl.startsWith(`${journey.captureUrl}?`), 'PayPal sends the buyer back to the capture URL')
  t.match(new URL(returnUrl).searchParams.get('paymentId'), journey.paymentId)

  const done = await comeBack(returnUrl)
  t.match(done, { status: 'captured', payment: { totalAmount: 1999, currencyCode: 'EUR' } })
  const payment = await storedPayment(shop, journey.id)
  const cancelUrl = new URL(journey.captureUrl)
  cancelUrl.searchParams.set('cancelled', '1')
  t.match(payment.details, {
    id: journey.paymentId,
    state: 'approved',
    intent: 'sale',
    payer: { payment_method: 'paypal' },
    transactions: [{ amount: { total: '19.99', currency: 'EUR' }, description: 'Mug', invoice_number: payment.number }],
    redirect_urls: { return_url: journey.captureUrl, cancel_url: cancelUrl.href }
  })
  t.equal(saleOf(payment.details).state, 'completed')
  t.match(shop.paypal.simulator.counters(), { paymentsCreated: 1, paymentsExecuted: 1 })
})

t.test('cancel on PayPal\'s page: the cancel URL marks the payment canceled without calling PayPal', async (t) => {
  const { shop, endpoint } = await startShopBehindProxy(t)
  const journey = await startJourney(shop, {})
  const cancelUrl = await decideOnApprovalPage(journey.approvalUrl, 'cancel')
  t.equal(new URL(cancelUrl).searchParams.get('cancelled'), '1')
  const callsBefore = endpoint.requests.length
  const done = await comeBack(cancelUrl)
  t.equal(done.status, 'canceled')
  t.equal(endpoint.requests.length, callsBefore, 'PayPal was not called')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 0)
  t.equal((await storedPayment(shop, journey.id)).details.state, 'cancelled')
})

/** A shop whose PayPal calls go through a recording proxy. */
async function startShopBehindProxy (t: Teardown) {
  const shop = await startShop(t)
  const endpoint = await recordingProxy(t, shop.endpoint)
  shop.app.paywire.addGateway(GATEWAY, { factory: 'paypal_rest', config: { 'service.EndPoint': endpoint.url } })
  return { shop, endpoint }
}

t.test('a declined card: done reads failed, PayPal\'s error and debug id are kept, the buyer never sees a 500', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'decline')
  const back = await visit(returnUrl)
  t.equal(back.status, 302, 'the buyer is sent to the done page')
  t.equal((await readDone(back.location)).status, 'failed')
  const { details } = await storedPayment(shop, journey.id)
  t.equal(details.state, 'failed')
  t.match(details.error, { name: 'INSTRUMENT_DECLINED', message: String, debug_id: /^[0-9a-f]{13}$/ })
})

t.test('a pending sale reads pending; once PayPal settles it, its webhook makes it captured', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop, {}, 'approve_pending')
  t.equal(done.status, 'pending')
  const sale = saleOf((await storedPayment(shop, id)).details)
  t.equal(sale.state, 'pending')

  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.settleSale(sale.id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'captured')
  t.equal(saleOf((await storedPayment(shop, id)).details).state, 'completed')
})

t.test('a pending sale that bounces reads failed', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop, {}, 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.settleSale(saleOf((await storedPayment(shop, id)).details).id, 'denied')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'failed')
})

t.test('JPY has no decimals: 500 JPY is "500" at PayPal', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop, { totalAmount: 500, currencyCode: 'JPY' })
  t.match(done, { status: 'captured', payment: { totalAmount: 500, currencyCode: 'JPY' } })
  const { details } = await storedPayment(shop, id)
  t.match(details.transactions[0].amount, { total: '500', currency: 'JPY' })
  t.match(shop.paypal.simulator.payment(details.id)?.transactions[0]?.amount, { total: '500', currency: 'JPY' })
})

t.test('HUF: whole amounts go to PayPal without decimals; a fraction is refused before PayPal is called', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop, { totalAmount: 150000, currencyCode: 'HUF' })
  t.equal(done.status, 'captured')
  t.match((await storedPayment(shop, id)).details.transactions[0].amount, { total: '1500', currency: 'HUF' })

  const fraction = await checkout(shop, { totalAmount: 150050, currencyCode: 'HUF' })
  const refused = await visit(fraction.captureUrl)
  t.equal(refused.status, 400)
  t.match(JSON.parse(refused.body), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', message: /150050 HUF.*whole HUF/ })
  t.equal(shop.paypal.simulator.counters().paymentsCreated, 1, 'only the whole amount reached PayPal')
})

t.test('coming back to capture after the payment was executed never executes it again', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  await comeBack(returnUrl)

  const reload = await visit(returnUrl)
  t.equal(reload.status, 303, 'the capture token was used up: its reload leads to the result')
  t.equal((await readDone(reload.location)).status, 'captured')

  // A new capture token for the same payment, with PayPal's return parameters.
  const payment = await storedPayment(shop, journey.id)
  const token = await shop.app.paywire.getTokenFactory().createCaptureToken(GATEWAY, payment, 'done')
  const again = await visit(`${token.targetUrl}${new URL(returnUrl).search}`)
  t.equal(again.status, 302)
  t.equal((await readDone(again.location)).status, 'captured')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('PAYMENT_ALREADY_DONE (executed elsewhere) leads to a sync, not a failure', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  // Another process executed it, and its answer never made it into this shop's records.
  const executed = await callPaypal(shop, 'POST', `/v1/payments/payment/${journey.paymentId}/execute`, { payer_id: new URL(returnUrl).searchParams.get('PayerID') })
  t.equal(executed.status, 200)

  const done = await comeBack(returnUrl)
  t.equal(done.status, 'captured')
  const { details } = await storedPayment(shop, journey.id)
  t.equal(details.state, 'approved')
  t.notOk('error' in details, 'no error is kept')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('one access token for many payments; a token PayPal drops mid-flow is refreshed exactly once', async (t) => {
  const shop = await startShop(t)
  for (let n = 0; n < 3; n++) t.equal((await pay(shop)).done.status, 'captured')
  t.equal(shop.paypal.simulator.counters().tokenGrants, 1)

  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.expireAllTokens()
  t.equal((await comeBack(returnUrl)).status, 'captured')
  t.match(shop.paypal.simulator.counters(), { tokenGrants: 2, paymentsExecuted: 4 })
})

t.test('wrong credentials: the buyer gets a coded 502 that names no secret, and nothing is marked', async (t) => {
  const shop = await startShop(t, { gateway: { client_secret: 'not-the-secret-7c1e' } })
  const { id, captureUrl } = await checkout(shop)
  const refused = await visit(captureUrl)
  t.equal(refused.status, 502)
  t.match(JSON.parse(refused.body), { code: 'PAYWIRE_ERR_PROVIDER', message: 'PayPal refused the request: Client Authentication failed (invalid_client).' })
  t.notMatch(refused.body, 'not-the-secret-7c1e')
  t.notOk('state' in (await storedPayment(shop, id)).details)
})
