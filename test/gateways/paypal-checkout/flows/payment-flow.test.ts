import t from 'tap'
import { recordingProxy, type RecordedRequest } from '../../paypal-rest/fixtures/recorders.ts'
import { GATEWAY, captureOf, checkout, comeBack, decide, readDone, startCheckoutShop, startJourney, storedPayment, visit } from '../fixtures/shop.ts'

t.test('create → payer-action page → approve → back with token → captured; the order carries the payment\'s identity', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop, { totalAmount: 1999, currencyCode: 'EUR', description: 'Mug ☕' })
  t.equal(journey.approvalUrl, `${shop.endpoint}/checkoutnow?token=${journey.orderId}`)
  t.match((await visit(journey.approvalUrl)).body, '19.99 EUR')
  const returnUrl = await decide(journey.approvalUrl, 'approve')
  t.ok(returnUrl.startsWith(`${journey.captureUrl}?token=${journey.orderId}&PayerID=`), 'PayPal sends the buyer back to the capture URL with the order id')
  const done = await comeBack(returnUrl)
  t.match(done, { status: 'captured', payment: { totalAmount: 1999, currencyCode: 'EUR' } })
  const payment = await storedPayment(shop, journey.id)
  t.match(payment.details, {
    id: journey.orderId,
    intent: 'CAPTURE',
    status: 'COMPLETED',
    purchase_units: [{
      amount: { currency_code: 'EUR', value: '19.99', breakdown: { item_total: { value: '19.99' } } },
      items: [{ name: 'Mug ☕', quantity: '1' }],
      description: 'Mug ☕',
      invoice_id: payment.number,
      custom_id: payment.id
    }]
  })
  t.equal(captureOf(payment.details).status, 'COMPLETED')
  t.notOk('error' in payment.details)
  t.match(shop.paypal.simulator.orders.counters(), { ordersCreated: 1, ordersCaptured: 1 })
  const created = shop.paypal.simulator.requests({ method: 'POST', path: '/v2/checkout/orders' })
  t.equal(created.length, 1)
  t.equal(created[0]?.paypalRequestId, payment.details.paywire_request_ids.create, 'the stored request id is the one PayPal got')

  const reload = await visit(returnUrl)
  t.equal(reload.status, 303, 'a reload leads to the result')
  t.equal(shop.paypal.simulator.orders.counters().ordersCaptured, 1, 'never captured twice')
})

t.test('the order PayPal gets: experience context (URLs from the token, brand, locale, PAY_NOW), Prefer, a request id', async (t) => {
  const shop = await startCheckoutShop(t, { gateway: { locale: 'de-DE', shipping_preference: 'GET_FROM_FILE' } })
  const proxy = await recordingProxy(t, shop.endpoint)
  shop.app.paywire.addGateway(GATEWAY, { ...shop.gatewayOptions, config: { 'service.EndPoint': proxy.url, 'http.RetryBackoffMs': 1 } })
  const journey = await startJourney(shop)
  const create = proxy.requests.find((request) => request.path === '/v2/checkout/orders') as RecordedRequest
  const cancelUrl = new URL(journey.captureUrl)
  cancelUrl.searchParams.set('cancelled', '1')
  t.match(JSON.parse(create.body), {
    intent: 'CAPTURE',
    payment_source: {
      paypal: {
        experience_context: {
          return_url: journey.captureUrl, cancel_url: cancelUrl.href, brand_name: 'Mug Shop', locale: 'de-DE', shipping_preference: 'GET_FROM_FILE', user_action: 'PAY_NOW'
        }
      }
    }
  })
  t.match(create.headers, { prefer: 'return=representation', 'paypal-request-id': /-create$/ })
  t.equal(shop.paypal.simulator.orders.cancel(journey.orderId), `${cancelUrl.href}&token=${journey.orderId}`)
})

t.test('cancel on PayPal\'s page: canceled without calling PayPal again', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  const cancelUrl = await decide(journey.approvalUrl, 'cancel')
  const before = shop.paypal.simulator.counters().requestsReceived
  t.equal((await comeBack(cancelUrl)).status, 'canceled')
  t.equal(shop.paypal.simulator.counters().requestsReceived, before, 'PayPal was not called')
  t.equal((await storedPayment(shop, journey.id)).details.paywire_state, 'cancelled')
})

t.test('a declined instrument sends the buyer back by the 422\'s redirect link, the order still APPROVED; another instrument then pays', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  for (const decision of ['decline', 'needs_instrument'] as const) {
    const back = await visit(await decide(journey.approvalUrl, decision))
    t.equal(back.status, 302, `${decision}: the buyer is redirected, never answered JSON`)
    t.equal(back.location, `${shop.endpoint}/checkoutnow?token=${journey.orderId}`, 'to PayPal\'s checkout for the same order')
    const { details } = await storedPayment(shop, journey.id)
    const [issue, code] = decision === 'decline'
      ? ['INSTRUMENT_DECLINED', 'PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED']
      : ['PAYER_ACTION_REQUIRED', 'PAYWIRE_ERR_PAYPAL_PAYER_ACTION_REQUIRED']
    t.match(details.error, { name: 'UNPROCESSABLE_ENTITY', issue, code, debug_id: /^[0-9a-f]{13}$/ })
    t.equal(details.status, 'APPROVED', 'the order as PayPal leaves it')
    t.equal(details.paywire_payer_redirect, back.location)
    const captures = shop.paypal.simulator.orders.counters().ordersCaptured
    const reload = await visit(journey.captureUrl)
    t.equal(reload.location, back.location, 'a visit without PayPal\'s token goes back to PayPal...')
    t.equal(shop.paypal.simulator.orders.counters().ordersCaptured, captures, '...without trying the refused instrument again')
  }
  const { details } = await storedPayment(shop, journey.id)
  t.equal(details.paywire_refused_request_ids.length, 2, 'refused ids are never sent again')
  const done = await comeBack(await decide(journey.approvalUrl, 'approve'))
  t.equal(done.status, 'captured')
  const paid = (await storedPayment(shop, journey.id)).details
  t.notOk('error' in paid)
  t.notOk('paywire_payer_redirect' in paid, 'the way back is used up')
  t.match(shop.paypal.simulator.orders.counters(), { ordersCaptured: 3, declines: 2 })
})

t.test('a capture PayPal completes DECLINED reads failed; a PENDING one reads pending until its webhook', async (t) => {
  const shop = await startCheckoutShop(t)
  shop.paypal.simulator.orders.setOutcome('capture_declined')
  const declined = await startJourney(shop)
  t.equal((await comeBack(await decide(declined.approvalUrl, 'approve'))).status, 'failed')
  shop.paypal.simulator.orders.setOutcome(undefined)

  const pending = await startJourney(shop)
  const done = await comeBack(await decide(pending.approvalUrl, 'approve_pending'))
  t.equal(done.status, 'pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.orders.settleCapture(captureOf((await storedPayment(shop, pending.id)).details).id, 'COMPLETED')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'captured')
})

t.test('a final refusal (DUPLICATE_INVOICE_ID) ends the payment failed with the coded error kept', async (t) => {
  const shop = await startCheckoutShop(t)
  await comeBack(await decide((await startJourney(shop, { number: 'INV-7' })).approvalUrl, 'approve'))
  const second = await startJourney(shop, { number: 'INV-7' })
  t.equal((await comeBack(await decide(second.approvalUrl, 'approve'))).status, 'failed')
  t.match((await storedPayment(shop, second.id)).details.error, { issue: 'DUPLICATE_INVOICE_ID', code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED' })
})

t.test('a return without approval (a forged token) goes back to PayPal; bad amounts are refused before any call', async (t) => {
  const shop = await startCheckoutShop(t)
  const journey = await startJourney(shop)
  const forged = await visit(`${journey.captureUrl}?token=${journey.orderId}&PayerID=FAKE`)
  t.equal(forged.status, 302)
  t.equal(forged.location, journey.approvalUrl)
  t.match((await storedPayment(shop, journey.id)).details.error, { issue: 'ORDER_NOT_APPROVED' })

  const fraction = await checkout(shop, { totalAmount: 150050, currencyCode: 'HUF' })
  const refused = await visit(fraction.captureUrl)
  t.equal(refused.status, 400)
  t.match(JSON.parse(refused.body), { code: 'PAYWIRE_ERR_INVALID_AMOUNT' })
  t.equal(shop.paypal.simulator.orders.counters().ordersCreated, 1)
  t.equal(GATEWAY, 'paypal-v2')
})
