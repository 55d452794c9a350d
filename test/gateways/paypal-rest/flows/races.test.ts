/*
 * The races of issue 10, each played in a chosen order with the simulator's holds (never
 * sleeps), on memory and on Redis. Each ends with the record holding every money fact and
 * PayPal and Paywire agreeing.
 */
import t from 'tap'
import { Sync } from '../../../../plugins/core/index.ts'
import { BACKENDS, assertAgree, cancelPayment, integrityShop, paymentFields, refundPayment, untilDelivered } from '../fixtures/integrity.ts'
import {
  GATEWAY, callPaypal, decideOnApprovalPage, pay, readDone, saleOf, startJourney, storedPayment, visit, type Shop
} from '../fixtures/shop.ts'

const EXECUTE = '/v1/payments/payment/*/execute'
const PAYMENT = '/v1/payments/payment/*'
/** PayPal's later redeliveries are the test's own (webhooks.redeliver), so every attempt is accounted for. */
const ONE_ATTEMPT = { simulator: { webhookDelivery: { maxAttempts: 1 } } }

function answered (deliveries: Array<{ attempts: Array<{ statusCode?: number }> }>): Array<number | undefined> {
  return deliveries.map((delivery) => delivery.attempts.at(-1)?.statusCode)
}

function claimedSync (shop: Shop, id: string) {
  return storedPayment(shop, id).then((payment) => shop.app.paywire.executeExclusive(GATEWAY, payment, (model) => new Sync(model)))
}

for (const kind of BACKENDS) {
  t.test(`Sync vs a back-office partial refund: no refund bookkeeping erased, a second partial refund moves money (${kind})`, async (t) => {
    const shop = await integrityShop(t, kind, ONE_ATTEMPT)
    const { id, paymentId } = await pay(shop)
    await shop.paypal.simulator.webhooks.waitForIdle()

    // A Sync holds the payment while PayPal answers: the back office is told to retry, nothing runs beside it.
    let held = shop.paypal.simulator.faults.hold({ method: 'GET', path: PAYMENT })
    const sync = claimedSync(shop, id)
    await held.reached
    t.match(await refundPayment(shop, id, 500), { __typename: 'PaymentBusy' })
    held.release()
    await sync
    t.match(await refundPayment(shop, id, 500), { __typename: 'PaymentRefunded', status: 'REFUNDED', payment: { refundedAmount: 500 } })
    await shop.paypal.simulator.webhooks.waitForIdle()

    // Application code that skips the claim and syncs an old copy: its write is refused, not the refund's.
    const stale = await storedPayment(shop, id)
    held = shop.paypal.simulator.faults.hold({ method: 'GET', path: PAYMENT })
    const unclaimed = shop.app.paywire.getGateway(GATEWAY).execute(new Sync(stale))
    await held.reached
    t.match(await refundPayment(shop, id, 500), { __typename: 'PaymentRefunded', payment: { refundedAmount: 1000 } })
    held.release()
    await t.rejects(unclaimed, { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
    await shop.paypal.simulator.webhooks.waitForIdle()

    // The same amount once more: a new refund with a new id, and PayPal moves the money.
    t.match(await refundPayment(shop, id, 500), { __typename: 'PaymentRefunded', payment: { refundedAmount: 1500 } })
    await shop.paypal.simulator.webhooks.waitForIdle()
    t.equal(shop.paypal.simulator.counters().refunds, 3, 'every partial refund moved money')
    const paywire = await assertAgree(t, shop, id, paymentId, 'refunded')
    t.same(paywire.amounts, { captured: 1999, refunded: 1500, reversed: 0 })
    const entries = paywire.details.paywire_refunds as Array<{ requestId: string, state: string }>
    t.same(entries.map((entry) => entry.state), ['completed', 'completed', 'completed'])
    t.equal(new Set(entries.map((entry) => entry.requestId)).size, 3, 'each refund its own PayPal-Request-Id')
  })

  t.test(`a REFUNDED webhook during a slow capture: answered 409, redelivered, never overwritten (${kind})`, async (t) => {
    const shop = await integrityShop(t, kind, ONE_ATTEMPT)
    const journey = await startJourney(shop)
    const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
    await shop.paypal.simulator.webhooks.waitForIdle()

    // PayPal executes; its answer to the buyer's capture is still on its way...
    const held = shop.paypal.simulator.faults.hold({ method: 'POST', path: EXECUTE, when: 'after' })
    const back = visit(returnUrl)
    await held.reached
    // ...when the money goes back from PayPal's dashboard.
    const sale = saleOf(shop.paypal.simulator.payment(journey.paymentId) as Record<string, any>)
    t.equal((await callPaypal(shop, 'POST', `/v1/payments/sale/${sale.id}/refund`, {})).status, 201)
    const [completed] = await untilDelivered(shop, 'PAYMENT.SALE.COMPLETED')
    const [refunded] = await untilDelivered(shop, 'PAYMENT.SALE.REFUNDED')
    t.same(completed?.statusCodes, [409], 'the capture holds the payment: PayPal is told to deliver again')
    t.same(refunded?.statusCodes, [409])

    held.release()
    const page = await back
    t.equal(page.status, 302)
    t.equal((await readDone(page.location)).status, 'captured', 'the capture committed what it saw')
    // PayPal's redeliveries, the later event first.
    t.same(answered(await shop.paypal.simulator.webhooks.redeliver(refunded?.eventId as string)), [204])
    t.same(answered(await shop.paypal.simulator.webhooks.redeliver(completed?.eventId as string)), [204])

    t.equal((await readDone(page.location)).status, 'refunded')
    const paywire = await assertAgree(t, shop, journey.id, journey.paymentId, 'refunded')
    t.ok(paywire.details.paywire_webhook_events.includes(refunded?.eventId) && paywire.details.paywire_webhook_events.includes(completed?.eventId), 'both events processed')
    t.match(shop.paypal.simulator.counters(), { paymentsExecuted: 1, refunds: 1 })
  })

  t.test(`Sync after a cancel: PayPal's "created" never brings it back, the buyer's return charges nothing (${kind})`, async (t) => {
    const shop = await integrityShop(t, kind, ONE_ATTEMPT)
    const journey = await startJourney(shop)
    // The buyer approved at PayPal, and the shop cancels before they are back.
    const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
    await shop.paypal.simulator.webhooks.waitForIdle()
    const stale = await storedPayment(shop, journey.id)
    const held = shop.paypal.simulator.faults.hold({ method: 'GET', path: PAYMENT })
    const unclaimed = shop.app.paywire.getGateway(GATEWAY).execute(new Sync(stale))
    await held.reached
    t.match(await cancelPayment(shop, journey.id), { __typename: 'PaymentCanceled', status: 'CANCELED' })
    held.release()
    // PayPal told the unclaimed Sync nothing its copy did not hold: it writes nothing (reads never
    // write), so it cannot write its old copy over the cancel (a Sync that learns something does
    // try, and loses its compare-and-set: the storage contract's stale-copy test).
    await unclaimed
    t.equal((await storedPayment(shop, journey.id)).details.state, 'cancelled', 'the old copy is not written over the cancel')

    await claimedSync(shop, journey.id)
    t.equal((await storedPayment(shop, journey.id)).details.state, 'cancelled', 'a Sync through the claim keeps it canceled')
    const back = await visit(returnUrl)
    t.equal(back.status, 302)
    t.equal((await readDone(back.location)).status, 'canceled')
    t.equal(shop.paypal.simulator.counters().paymentsExecuted, 0, 'nothing was charged')
    await assertAgree(t, shop, journey.id, journey.paymentId, 'canceled')
  })

  t.test(`Sync after an expiry: still expired, and a later return charges nothing (${kind})`, async (t) => {
    let now = Date.now()
    const shop = await integrityShop(t, kind, { simulator: { now: () => now, webhookDelivery: { maxAttempts: 1 } } })
    const journey = await startJourney(shop)
    const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
    await shop.paypal.simulator.webhooks.waitForIdle()
    now += 4 * 3600_000
    const back = await visit(returnUrl)
    t.equal(back.status, 302)
    t.equal((await readDone(back.location)).status, 'expired')

    await claimedSync(shop, journey.id)
    t.equal((await storedPayment(shop, journey.id)).details.state, 'expired', 'PayPal\'s "created" did not reopen it')
    const payment = await storedPayment(shop, journey.id)
    const token = await shop.app.paywire.getTokenFactory().createCaptureToken(GATEWAY, payment, 'done')
    const again = await visit(`${token.targetUrl}${new URL(returnUrl).search}`)
    t.equal(again.status, 302)
    t.equal((await readDone(again.location)).status, 'expired')
    t.equal(shop.paypal.simulator.counters().paymentsExecuted, 0)
    t.equal(shop.paypal.simulator.requests({ method: 'POST', path: EXECUTE }).length, 1, 'the later return did not even ask PayPal')
    await assertAgree(t, shop, journey.id, journey.paymentId, 'expired')
  })

  t.test(`a REVERSED webhook moves a captured payment to refunded with the reversed amount (${kind})`, async (t) => {
    const shop = await integrityShop(t, kind, ONE_ATTEMPT)
    const { id, paymentId, done } = await pay(shop)
    await shop.paypal.simulator.webhooks.waitForIdle()
    t.match(await refundPayment(shop, id, 500), { __typename: 'PaymentRefunded' })
    await shop.paypal.simulator.webhooks.waitForIdle()

    // The chargeback arrives while a Sync holds the payment.
    const held = shop.paypal.simulator.faults.hold({ method: 'GET', path: PAYMENT })
    const sync = claimedSync(shop, id)
    await held.reached
    shop.paypal.simulator.reverseSale(saleOf((await storedPayment(shop, id)).details).id)
    const [reversed] = await untilDelivered(shop, 'PAYMENT.SALE.REVERSED')
    t.same(reversed?.statusCodes, [409])
    held.release()
    await sync
    t.same(answered(await shop.paypal.simulator.webhooks.redeliver(reversed?.eventId as string)), [204])

    const paywire = await assertAgree(t, shop, id, paymentId, 'refunded')
    t.same(paywire.amounts, { captured: 1999, refunded: 500, reversed: 1499 })
    t.match(paywire.details.paywire_reversals, [{ id: String, amount: { total: '14.99', currency: 'EUR' } }])
    t.same(await paymentFields(shop, id), { status: 'REFUNDED', capturedAmount: 1999, refundedAmount: 500, reversedAmount: 1499 })
    const page = await visit(done.doneUrl, { headers: { accept: 'text/html', 'accept-language': 'en-US' } })
    t.match(page.body, 'Refunded €5.00 of €19.99.')
    t.match(page.body, 'Reversed €14.99 of €19.99')
    t.match(await refundPayment(shop, id, 100), { __typename: 'OperationNotAllowed' }, 'nothing left to refund after a chargeback')
    t.equal(shop.paypal.simulator.counters().refunds, 1)
  })

  t.test(`a refused execute, then the real approval: the payment completes (${kind})`, async (t) => {
    const shop = await integrityShop(t, kind, ONE_ATTEMPT)
    const journey = await startJourney(shop)
    const forged = new URL(journey.captureUrl)
    forged.searchParams.set('paymentId', journey.paymentId)
    forged.searchParams.set('PayerID', 'FORGED0000000')

    // Someone opens the return URL before the buyer approved: back to PayPal, nothing ends.
    const early = await visit(forged.href)
    t.equal(early.status, 302)
    t.equal(early.location, journey.approvalUrl)
    t.equal((await storedPayment(shop, journey.id)).details.state, 'created')

    const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
    await shop.paypal.simulator.webhooks.waitForIdle()
    // A wrong PayerID again, its execute held at PayPal while the real buyer comes back.
    const held = shop.paypal.simulator.faults.hold({ method: 'POST', path: EXECUTE })
    const wrong = visit(forged.href)
    await held.reached
    const real = visit(returnUrl)
    held.release()
    t.match(await wrong, { status: 302, location: journey.approvalUrl })
    const back = await real
    t.equal(back.status, 302)
    t.equal((await readDone(back.location)).status, 'captured')
    t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1)
    const paywire = await assertAgree(t, shop, journey.id, journey.paymentId, 'captured')
    t.equal(paywire.details.paywire_refused_request_ids.length, 2, 'each refused execute id retired')
    t.notOk('error' in paywire.details)
  })
}
