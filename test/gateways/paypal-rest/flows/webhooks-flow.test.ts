import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import type { WebhookDelivery } from '../../../../simulators/paypal/index.ts'
import { Payment } from '../../../../plugins/core/index.ts'
import { CapturingLogger, type Teardown } from '../fixtures/recorders.ts'
import {
  GATEWAY, callPaypal, comeBack, decideOnApprovalPage, deliver, heldDelivery, pay, readDone, saleOf, startJourney, startShop, storedPayment, visit,
  type Shop, type ShopOptions
} from '../fixtures/shop.ts'

const LOGGED = { 'log.LogEnabled': true }

/** A payment whose sale is pending, every delivery so far processed. */
async function pendingPayment (shop: Shop) {
  const paid = await pay(shop, {}, 'approve_pending')
  await shop.paypal.simulator.webhooks.waitForIdle()
  const sale = saleOf((await storedPayment(shop, paid.id)).details)
  return { ...paid, sale }
}

/** PayPal settles the sale while deliveries are held: returns the held PAYMENT.SALE.COMPLETED delivery. */
async function settleHeld (shop: Shop, saleId: string): Promise<WebhookDelivery> {
  shop.paypal.simulator.webhooks.pause()
  shop.paypal.simulator.settleSale(saleId, 'completed')
  return await heldDelivery(shop.paypal, 'PAYMENT.SALE.COMPLETED')
}

function answeredWith (deliveries: WebhookDelivery[]): Array<number | undefined> {
  return deliveries.map((delivery) => delivery.attempts.at(-1)?.statusCode)
}

function paymentCalls (logger: CapturingLogger): string[] {
  return logger.calls().filter((call) => call.startsWith('GET /v1/payments/payment/'))
}

async function shopWithLog (t: Teardown, options: ShopOptions = {}) {
  const logger = new CapturingLogger()
  const shop = await startShop(t, { ...options, logger, config: { ...LOGGED, ...options.config } })
  return { shop, logger }
}

t.test('real deliveries on the gateway-wide route: a pending payment becomes captured when PayPal settles it', async (t) => {
  const shop = await startShop(t)
  const { id, sale, done } = await pendingPayment(shop)
  t.equal(done.status, 'pending')
  shop.paypal.simulator.settleSale(sale.id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()

  t.equal((await readDone(done.doneUrl)).status, 'captured')
  const deliveries = shop.paypal.simulator.webhooks.deliveries()
  t.same([...new Set(answeredWith(deliveries))], [204], 'each delivery was verified and acknowledged')
  const completed = deliveries.find((delivery) => delivery.eventType === 'PAYMENT.SALE.COMPLETED')
  t.ok((await storedPayment(shop, id)).details.paywire_webhook_events.includes(completed?.eventId), 'the event is remembered')
})

t.test('a refund made outside the shop (PayPal\'s dashboard) reaches it by webhook', async (t) => {
  const shop = await startShop(t)
  const { id, done } = await pay(shop)
  await shop.paypal.simulator.webhooks.waitForIdle()
  const refund = await callPaypal(shop, 'POST', `/v1/payments/sale/${saleOf((await storedPayment(shop, id)).details).id}/refund`, {})
  t.equal(refund.status, 201)
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'refunded')
})

t.test('CUSTOMER.DISPUTE.*: the sale is found through PayPal; suspended while open, captured when won, refunded when lost', async (t) => {
  const shop = await startShop(t)
  const won = await pay(shop)
  await shop.paypal.simulator.webhooks.waitForIdle()
  const wonSale = saleOf((await storedPayment(shop, won.id)).details).id as string
  const first = shop.paypal.simulator.disputes.open(wonSale, { reason: 'UNAUTHORISED' })
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(won.done.doneUrl)).status, 'suspended', 'the money is contested')
  t.match((await storedPayment(shop, won.id)).details.paywire_disputes, [{ dispute_id: first.dispute_id, reason: 'UNAUTHORISED' }])
  shop.paypal.simulator.disputes.resolve(first.dispute_id as string, 'won')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(won.done.doneUrl)).status, 'captured', 'won: the money stays')

  const lost = await pay(shop)
  await shop.paypal.simulator.webhooks.waitForIdle()
  const second = shop.paypal.simulator.disputes.open(saleOf((await storedPayment(shop, lost.id)).details).id as string)
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.disputes.resolve(second.dispute_id as string, 'lost')
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(lost.done.doneUrl)).status, 'refunded', 'lost: the money went back to the buyer')
  t.match((await storedPayment(shop, lost.id)).details.paywire_disputes, [{ dispute_id: second.dispute_id, status: 'RESOLVED', outcome_code: 'RESOLVED_BUYER_FAVOUR' }])
})

t.test('forged deliveries are refused with 400 before anything changes', async (t) => {
  const { shop, logger } = await shopWithLog(t)
  const { id, sale } = await pendingPayment(shop)
  const held = await settleHeld(shop, sale.id)
  const before = JSON.stringify((await storedPayment(shop, id)).details)
  const lookupsBefore = paymentCalls(logger).length
  const headers = { ...held.headers }

  const tampered = held.body.replace('"state":"completed"', '"state":"denied"')
  t.not(tampered, held.body)
  t.equal((await deliver(shop, tampered, headers)).status, 400, 'a tampered body')
  const otherSubscription = await shop.paypal.simulator.webhooks.sign(held.body, { webhookId: '8PT597110X687430LKGECATA' })
  t.equal((await deliver(shop, held.body, { ...otherSubscription })).status, 400, 'signed for another webhook id')
  for (const header of Object.keys(headers)) {
    const { [header]: _left, ...others } = headers as Record<string, string>
    t.equal((await deliver(shop, held.body, others)).status, 400, `without ${header}`)
  }
  const garbage = await shop.paypal.simulator.webhooks.sign('not json', { webhookId: shop.webhookId })
  const notJson = await deliver(shop, 'not json', { ...garbage, 'content-type': 'text/plain' })
  t.equal(notJson.status, 400, 'a body that is no event')
  t.match(notJson.body, 'Not a PayPal webhook event')

  t.equal(JSON.stringify((await storedPayment(shop, id)).details), before, 'the payment did not change')
  t.equal(paymentCalls(logger).length, lookupsBefore, 'no forged delivery led to a payment look-up')

  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal(saleOf((await storedPayment(shop, id)).details).state, 'completed', 'the genuine delivery still works')
})

t.test('a payment another request holds: the delivery is answered 409 PAYWIRE_ERR_PAYMENT_BUSY, and PayPal\'s redelivery is processed', async (t) => {
  const shop = await startShop(t, { simulator: { webhookDelivery: { maxAttempts: 1 } } })
  const { id, sale, done } = await pendingPayment(shop)
  const claims = shop.app.paywire.getTokenStorage()
  const claim = await claims.claimModel(shop.app.paywire.getStorage(Payment).identify(await storedPayment(shop, id)), 30_000)
  const held = await settleHeld(shop, sale.id)
  const busy = await deliver(shop, held.body, { ...held.headers })
  t.equal(busy.status, 409)
  t.match(JSON.parse(busy.body), { code: 'PAYWIRE_ERR_PAYMENT_BUSY' })
  t.equal(saleOf((await storedPayment(shop, id)).details).state, 'pending', 'nothing ran beside the holder')
  await claims.releaseClaim(claim)

  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.equal((await readDone(done.doneUrl)).status, 'captured', 'PayPal delivered again: processed')
  t.ok((await storedPayment(shop, id)).details.paywire_webhook_events.includes(held.eventId))
})

t.test('the same event twice is processed once', async (t) => {
  const { shop, logger } = await shopWithLog(t)
  const { id, sale } = await pendingPayment(shop)
  shop.paypal.simulator.settleSale(sale.id, 'completed')
  await shop.paypal.simulator.webhooks.waitForIdle()
  const event = shop.paypal.simulator.webhooks.deliveries().find((delivery) => delivery.eventType === 'PAYMENT.SALE.COMPLETED')
  const lookups = paymentCalls(logger).length

  const again = await shop.paypal.simulator.webhooks.redeliver(event?.eventId as string)
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.same(answeredWith(again), [204], 'the duplicate is acknowledged')
  t.equal(paymentCalls(logger).length, lookups, 'and not processed again')
  const seen = (await storedPayment(shop, id)).details.paywire_webhook_events as string[]
  t.equal(seen.filter((eventId) => eventId === event?.eventId).length, 1)
})

t.test('events delivered in reverse order never move a payment back', async (t) => {
  const shop = await startShop(t)
  const { id, sale, done } = await pendingPayment(shop)
  await settleHeld(shop, sale.id)
  t.equal((await callPaypal(shop, 'POST', `/v1/payments/sale/${sale.id}/refund`, { amount: { total: '5.00', currency: 'EUR' } })).status, 201)
  await heldDelivery(shop.paypal, 'PAYMENT.SALE.REFUNDED')
  const held = shop.paypal.simulator.webhooks.deliveries().filter((delivery) => delivery.status === 'held')
  t.same(held.map((delivery) => delivery.eventType), ['PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.REFUNDED'])

  shop.paypal.simulator.webhooks.resume({ reverse: true })
  await shop.paypal.simulator.webhooks.waitForIdle()
  t.same(answeredWith(shop.paypal.simulator.webhooks.deliveries({ eventId: held[0]?.eventId })), [204])
  t.equal((await readDone(done.doneUrl)).status, 'refunded', 'the late "completed" did not undo the refund')
  t.equal(saleOf((await storedPayment(shop, id)).details).state, 'partially_refunded')
})

t.test('a late event for a payment the buyer canceled in the shop leaves it canceled', async (t) => {
  const shop = await startShop(t)
  const journey = await startJourney(shop)
  shop.paypal.simulator.webhooks.pause()
  await decideOnApprovalPage(journey.approvalUrl, 'approve')
  // The buyer approved at PayPal, then canceled in the shop instead of coming back.
  const { details } = await storedPayment(shop, journey.id)
  t.equal((await comeBack(details.redirect_urls.cancel_url)).status, 'canceled')

  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()
  const created = shop.paypal.simulator.webhooks.deliveries().filter((delivery) => delivery.eventType === 'PAYMENTS.PAYMENT.CREATED')
  t.same(answeredWith(created), [204])
  const after = (await storedPayment(shop, journey.id)).details
  t.equal(after.state, 'cancelled', 'PayPal\'s "created" did not reopen it')
  t.ok(after.paywire_webhook_events.includes(created[0]?.eventId))
})

t.test('an event for a payment the shop does not know is acknowledged with 204', async (t) => {
  const shop = await startShop(t)
  const events = [
    { id: 'WH-1', event_type: 'PAYMENT.SALE.COMPLETED', resource_type: 'sale', resource: { id: '5O190127TN364715T', parent_payment: 'PAYID-LVTZ3XQ3A60223846L382913' } },
    { id: 'WH-2', event_type: 'PAYMENTS.PAYMENT.CREATED', resource_type: 'payment', resource: { id: 'PAYID-LVTZ3XQ3A60223846L382914' } },
    { id: 'WH-3', event_type: 'BILLING.PLAN.CREATED', resource_type: 'plan', resource: { id: 'P-1' } }
  ]
  for (const event of events) {
    const body = JSON.stringify(event)
    const answer = await deliver(shop, body, { ...await shop.paypal.simulator.webhooks.sign(body, { webhookId: shop.webhookId }) })
    t.equal(answer.status, 204, event.event_type)
  }
})

t.test('without webhook_id the gateway cannot verify: a coded error, PayPal keeps retrying', async (t) => {
  const shop = await startShop(t)
  shop.app.paywire.addGateway(GATEWAY, { factory: 'paypal_rest', webhook_id: '' })
  const body = JSON.stringify({ id: 'WH-1', event_type: 'PAYMENT.SALE.COMPLETED', resource: {} })
  const answer = await deliver(shop, body, { ...await shop.paypal.simulator.webhooks.sign(body, { webhookId: shop.webhookId }) })
  t.equal(answer.status, 500)
  t.match(JSON.parse(answer.body), { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: /"webhook_id"/ })
})

t.test('offline verification: deliveries checked against PayPal\'s certificate, the verify endpoint never called', async (t) => {
  const { shop, logger } = await shopWithLog(t, { gateway: { webhook_verification: 'offline' } })
  const { sale, done } = await pendingPayment(shop)
  const held = await settleHeld(shop, sale.id)
  t.equal((await deliver(shop, held.body.replace('"state":"completed"', '"state":"denied"'), { ...held.headers })).status, 400, 'a tampered body')
  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()

  t.equal((await readDone(done.doneUrl)).status, 'captured')
  t.same([...new Set(answeredWith(shop.paypal.simulator.webhooks.deliveries()))], [204])
  t.notOk(logger.calls().some((call) => call.includes('verify-webhook-signature')), 'PayPal was not asked')
})

t.test('offline verification without the simulator\'s CA as trust anchor refuses its deliveries: a certificate no trusted CA issued', async (t) => {
  const shop = await startShop(t, { gateway: { webhook_verification: 'offline', webhook_trust_anchors: '' } })
  const { sale, done } = await pendingPayment(shop)
  const held = await settleHeld(shop, sale.id)
  t.equal((await deliver(shop, held.body, { ...held.headers })).status, 400, 'refused: Node\'s bundled roots issued no simulator certificate')
  t.equal((await readDone(done.doneUrl)).status, 'pending', 'nothing was taken from it')
  shop.paypal.simulator.webhooks.resume()
  await shop.paypal.simulator.webhooks.waitForIdle()
})

t.test('offline verification refuses a certificate URL outside PayPal and never downloads it', async (t) => {
  const shop = await startShop(t, { gateway: { webhook_verification: 'offline' } })
  const downloads: string[] = []
  const pem = await shop.paypal.simulator.webhooks.certificatePem()
  const impostor = createServer((request, response) => {
    downloads.push(request.url as string)
    response.end(pem)
  })
  impostor.listen(0, '127.0.0.1')
  await once(impostor, 'listening')
  t.teardown(() => { impostor.close() })
  const impostorUrl = `http://127.0.0.1:${(impostor.address() as AddressInfo).port}/v1/notifications/certs/CERT-1`

  const { sale } = await pendingPayment(shop)
  const held = await settleHeld(shop, sale.id)
  for (const certUrl of [impostorUrl, 'https://paypal.com.example.net/cert.pem', 'http://api.paypal.com/cert.pem', 'not a url']) {
    t.equal((await deliver(shop, held.body, { ...held.headers, 'paypal-cert-url': certUrl })).status, 400, certUrl)
  }
  t.same(downloads, [], 'nothing was downloaded')
  shop.paypal.simulator.webhooks.resume()
})

t.test('the notify route of an unknown gateway is a coded 404', async (t) => {
  const shop = await startShop(t)
  const answer = await visit(`${shop.origin}/payment/notify/unsafe/nope`, { json: {} })
  t.equal(answer.status, 404)
  t.match(JSON.parse(answer.body), { code: 'PAYWIRE_ERR_UNKNOWN_GATEWAY' })
})
