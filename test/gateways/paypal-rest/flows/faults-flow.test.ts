import t from 'tap'
import { CapturingLogger, recordingProxy, type Teardown } from '../fixtures/recorders.ts'
import {
  GATEWAY, checkout, comeBack, decideOnApprovalPage, startJourney, startShop, storedPayment, visit, type ShopOptions
} from '../fixtures/shop.ts'

const EXECUTE = '/v1/payments/payment/*/execute'

/** A shop whose PayPal calls go through a recording proxy, so the wire shows every attempt. */
async function shopBehindProxy (t: Teardown, options: ShopOptions = {}) {
  const shop = await startShop(t, options)
  const wire = await recordingProxy(t, shop.endpoint)
  shop.app.paywire.addGateway(GATEWAY, { factory: 'paypal_rest', config: { 'service.EndPoint': wire.url } })
  const executes = () => wire.matching('POST', /\/execute$/)
  return { shop, wire, executes }
}

t.test('execute answered 500 after PayPal did the work: retried with the same PayPal-Request-Id, paid once', async (t) => {
  const { shop, executes } = await shopBehindProxy(t)
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: EXECUTE })

  t.equal((await comeBack(returnUrl)).status, 'captured')
  const attempts = executes()
  t.equal(attempts.length, 2, 'one retry')
  const requestId = attempts[0]?.headers['paypal-request-id']
  t.match(requestId, /-execute$/)
  t.equal(attempts[1]?.headers['paypal-request-id'], requestId, 'the retry carries the same PayPal-Request-Id')
  t.equal((await storedPayment(shop, journey.id)).details.paywire_request_ids.execute, requestId, 'the id is stored with the payment')
  const counters = shop.paypal.simulator.counters()
  t.equal(counters.paymentsExecuted, 1, 'paid once')
  t.ok(counters.idempotentReplays >= 1, 'PayPal replayed its first answer')
})

t.test('execute answered 500 on every attempt after PayPal did the work: the gateway looks the payment up, the buyer sees captured', async (t) => {
  const { shop, executes } = await shopBehindProxy(t, { config: { 'http.Retry': 1 } })
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 500, when: 'after', method: 'POST', path: EXECUTE, times: 2 })
  t.equal((await comeBack(returnUrl)).status, 'captured')
  t.equal(executes().length, 2)
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1)
})

t.test('an answer slower than http.CURLOPT_TIMEOUT: retried with the same id, paid once', async (t) => {
  const { shop, executes } = await shopBehindProxy(t, { config: { 'http.CURLOPT_TIMEOUT': 0.5, 'http.RetryBackoffMs': 100 } })
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.faults.inject({ kind: 'delay', delayMs: 1500, when: 'after', method: 'POST', path: EXECUTE })

  t.equal((await comeBack(returnUrl)).status, 'captured')
  const ids = new Set(executes().map((attempt) => attempt.headers['paypal-request-id']))
  t.ok(executes().length >= 2, 'the timed-out call was retried')
  t.equal(ids.size, 1, 'every attempt carried the same PayPal-Request-Id')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1, 'paid once')
})

t.test('5xx on every attempt: a coded 502, nothing marked, the token still works and a later return completes', async (t) => {
  const { shop, executes } = await shopBehindProxy(t, { config: { 'http.Retry': 2 } })
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: EXECUTE, times: 3 })

  const failed = await visit(returnUrl)
  t.equal(failed.status, 502)
  t.match(JSON.parse(failed.body), { code: 'PAYWIRE_ERR_PROVIDER', message: /PayPal refused the request: .*SERVICE_UNAVAILABLE/ })
  t.equal(executes().length, 3, 'the first attempt and http.Retry retries')
  const { details } = await storedPayment(shop, journey.id)
  t.equal(details.state, 'created', 'the payment is not marked')
  t.match(details.error, { name: 'SERVICE_UNAVAILABLE', debug_id: /^[0-9a-f]{13}$/ }, 'PayPal\'s error is kept')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 0)

  // PayPal is back; the buyer reloads the return URL.
  t.equal((await comeBack(returnUrl)).status, 'captured')
  t.notOk('error' in (await storedPayment(shop, journey.id)).details, 'the error is gone once it worked')
  t.match(shop.paypal.simulator.counters(), { paymentsExecuted: 1, tokenGrants: 1 }, 'paid once, with the same access token')
})

t.test('429 is retried after a back-off: the buyer lands on the payment paid once', async (t) => {
  const { shop, executes } = await shopBehindProxy(t)
  const journey = await startJourney(shop)
  const returnUrl = await decideOnApprovalPage(journey.approvalUrl, 'approve')
  shop.paypal.simulator.faults.inject({ kind: 'rate_limit', method: 'POST', path: EXECUTE })
  t.equal((await comeBack(returnUrl)).status, 'captured')
  t.equal(executes().length, 2, 'the limited call, then one more')
  t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1, 'paid once')
})

t.test('a timeout on create, then 409 while PayPal still runs the first call: retried, one payment at PayPal', async (t) => {
  const logger = new CapturingLogger()
  const shop = await startShop(t, { logger, config: { 'http.CURLOPT_TIMEOUT': 0.5, 'http.RetryBackoffMs': 200, 'http.Retry': 5, 'log.LogEnabled': true } })
  shop.paypal.simulator.faults.inject({ kind: 'delay', delayMs: 1500, when: 'before', method: 'POST', path: '/v1/payments/payment' })
  const journey = await startJourney(shop)
  const creates = logger.calls().filter((call) => call.startsWith('POST /v1/payments/payment '))
  t.equal(creates[0], 'POST /v1/payments/payment -', 'the first call timed out')
  t.ok(creates.includes('POST /v1/payments/payment 409'), 'PayPal refused a retry while the first call still ran')
  t.equal(creates.at(-1), 'POST /v1/payments/payment 200', 'a retry got the first call\'s answer')
  t.equal(shop.paypal.simulator.counters().paymentsCreated, 1, 'one payment at PayPal')
  t.equal((await comeBack(await decideOnApprovalPage(journey.approvalUrl, 'approve'))).status, 'captured')
})

t.test('PayPal unreachable: a coded 502 for the buyer, and a retry once it is back completes', async (t) => {
  const shop = await startShop(t, { config: { 'service.EndPoint': 'http://127.0.0.1:9', 'http.Retry': 1 } })
  const { id, captureUrl } = await checkout(shop)
  const unreachable = await visit(captureUrl)
  t.equal(unreachable.status, 502)
  t.match(JSON.parse(unreachable.body), { code: 'PAYWIRE_ERR_PROVIDER', message: /no answer from PayPal/ })
  t.notOk('state' in (await storedPayment(shop, id)).details, 'nothing is marked')

  shop.app.paywire.addGateway(GATEWAY, { factory: 'paypal_rest', config: { 'service.EndPoint': shop.endpoint } })
  const toPaypal = await visit(captureUrl)
  t.equal(toPaypal.status, 302)
  t.equal((await comeBack(await decideOnApprovalPage(toPaypal.location, 'approve'))).status, 'captured')
})
