import createError from '@fastify/error'
import { withKind } from '../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalCallError } from '../paypal-shared/index.ts'

/**
 * The paypal_checkout gateway's coded errors (`paypalCheckoutErrorCodes` from
 * `paywire/gateways/paypal-checkout`), for PayPal's Orders v2 422 answers: the issue PayPal names
 * (details[].issue) and its debug id are in the message.
 */
export const PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED = withKind('instrument_declined', createError<[string]>(
  'PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED',
  'PayPal declined the buyer\'s funding source (debug id %s): the buyer must choose another one at PayPal.',
  402
))

export const PAYWIRE_ERR_PAYPAL_PAYER_ACTION_REQUIRED = withKind('payer_action_required', createError<[string]>(
  'PAYWIRE_ERR_PAYPAL_PAYER_ACTION_REQUIRED',
  'PayPal needs the buyer to act (debug id %s): send them back to PayPal.',
  402
))

export const PAYWIRE_ERR_PAYPAL_ORDER_REFUSED = withKind('provider_refused', createError<[string, string]>(
  'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED',
  'PayPal refused the call for good: %s (debug id %s).',
  422
))

/** The issue PayPal names (Orders v2: details[0].issue), else its error name. */
export function issueOf (error: PaypalCallError): string {
  const [detail] = (error.paypal.details ?? []) as Array<{ issue?: unknown }>
  return typeof detail?.issue === 'string' ? detail.issue : error.paypal.name
}

/**
 * Where PayPal's refusal sends the buyer: the `redirect` link of a 422 INSTRUMENT_DECLINED (or
 * PAYER_ACTION_REQUIRED), back to PayPal's checkout for the same order, which stays APPROVED
 * (https://developer.paypal.com/docs/checkout/standard/customize/handle-funding-failures/: "restart the
 * payment so the payer can select a different payment option").
 */
export function redirectOf (error: PaypalCallError): string | undefined {
  const links = (error.paypal.links ?? []) as Array<{ rel?: unknown, href?: unknown } | null>
  const found = links.find((candidate) => candidate?.rel === 'redirect' && typeof candidate.href === 'string')
  return found?.href as string | undefined
}

/** Refusals the buyer puts right at PayPal (another card, a 3-D Secure step). */
export const RECOVERABLE_ISSUES: ReadonlySet<string> = new Set(['INSTRUMENT_DECLINED', 'PAYER_ACTION_REQUIRED'])

/** No answer or a 5xx even after retries: PayPal may or may not have done the work. */
export function isOutcomeUnknown (error: PaypalCallError): boolean {
  return error.httpStatus === undefined || error.httpStatus >= 500
}

/** PayPal looked and said no (a 4xx other than 401/409/429): the same call never works. */
export function isFinalRefusal (error: PaypalCallError): boolean {
  return !isOutcomeUnknown(error) && ![401, 409, 429].includes(error.httpStatus as number)
}

/** A PayPal refusal as the coded Paywire error that names it. */
export function codedError (error: PaypalCallError): Error {
  const issue = issueOf(error)
  const debugId = error.paypal.debug_id ?? 'none'
  const coded = issue === 'INSTRUMENT_DECLINED'
    ? new PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED(debugId)
    : issue === 'PAYER_ACTION_REQUIRED' ? new PAYWIRE_ERR_PAYPAL_PAYER_ACTION_REQUIRED(debugId) : new PAYWIRE_ERR_PAYPAL_ORDER_REFUSED(issue, debugId)
  return Object.assign(coded, { provider: 'PayPal', providerCode: issue, debugId: error.paypal.debug_id })
}

/** What the record keeps of a refusal: PayPal's name, issue, message and debug id, and the Paywire code. */
export function recordedError (error: PaypalCallError): Record<string, unknown> {
  const coded = isFinalRefusal(error) ? codedError(error) as Error & { code: string } : error
  return { ...error.paypal, issue: issueOf(error), code: coded.code }
}

export { isPaypalCallError }
