import t from 'tap'
import { isOutcomeUnknown, recordFailure } from '../../../../gateways/paypal-rest/actions/failures.ts'
import type { PaypalCallError } from '../../../../gateways/paypal-rest/index.ts'
import { providerError } from '../../../../plugins/core/index.ts'
import { capture, engineSetup, paypalId, preparePayment, reload, statusOf, toApproval } from '../fixtures/paywire.ts'

/** A failed PayPal call as PaypalRestApi throws it. */
function callError (httpStatus: number | undefined, name: string): PaypalCallError {
  const error = providerError({ provider: 'PayPal', providerCode: name, message: `${name} happened`, debugId: 'abcdef0123456' }) as PaypalCallError
  error.httpStatus = httpStatus
  error.paypal = { name, message: `${name} happened`, debug_id: 'abcdef0123456' }
  return error
}

t.test('a refusal ends the payment: failed, PayPal\'s error kept', async (t) => {
  const record: Record<string, unknown> = { state: 'created' }
  recordFailure(record, callError(400, 'INSTRUMENT_DECLINED'))
  t.same(record, { state: 'failed', error: { name: 'INSTRUMENT_DECLINED', message: 'INSTRUMENT_DECLINED happened', debug_id: 'abcdef0123456' } })
  const expired: Record<string, unknown> = { state: 'created' }
  recordFailure(expired, callError(400, 'PAYMENT_EXPIRED'))
  t.equal(expired.state, 'expired')
})

t.test('what may work later is thrown, the error kept, the state untouched', async (t) => {
  for (const [status, name] of [[undefined, 'NO_RESPONSE'], [500, 'INTERNAL_SERVICE_ERROR'], [503, 'SERVICE_UNAVAILABLE'], [401, 'invalid_client'], [409, 'RESOURCE_CONFLICT'], [429, 'RATE_LIMIT_REACHED']] as const) {
    const record: Record<string, unknown> = { state: 'created' }
    const error = callError(status, name)
    t.throws(() => recordFailure(record, error), error, name)
    t.equal(record.state, 'created')
    t.match(record.error, { name })
  }
  const bug = new TypeError('not a PayPal error')
  const record: Record<string, unknown> = {}
  t.throws(() => recordFailure(record, bug), bug)
  t.same(record, {}, 'other errors are not PayPal\'s: nothing kept')
})

t.test('an outcome is unknown without an answer or after a 5xx', async (t) => {
  t.ok(isOutcomeUnknown(callError(undefined, 'NO_RESPONSE')))
  t.ok(isOutcomeUnknown(callError(502, 'HTTP_502')))
  t.notOk(isOutcomeUnknown(callError(400, 'VALIDATION_ERROR')))
  t.notOk(isOutcomeUnknown(callError(409, 'RESOURCE_CONFLICT')))
})

t.test('PAYMENT_EXPIRED from PayPal: the payment reads expired', async (t) => {
  let clock = Date.now()
  const setup = await engineSetup(t, { simulator: { now: () => clock } })
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const { redirectUrl } = setup.paypal.simulator.approve(await paypalId(setup.paywire, prepared.payment))
  clock += 4 * 3600 * 1000
  t.equal(await capture(setup.paywire, prepared.token, Object.fromEntries(new URL(redirectUrl).searchParams)), undefined)
  t.equal(await statusOf(setup.paywire, prepared.payment), 'expired')
  t.match((await reload(setup.paywire, prepared.payment)).details.error, { name: 'PAYMENT_EXPIRED' })
})
