import { isPaypalCallError, type PaypalCallError } from '../api.ts'
import type { PaypalRecord } from '../details.ts'

/** PayPal errors after which the payment cannot go on, and the state they leave it in. */
const FINAL_ERRORS: Record<string, string> = {
  PAYMENT_EXPIRED: 'expired'
}

/** Statuses after which the same call may work later: bad credentials, a call still running, rate limits. */
const TRANSIENT_STATUSES = new Set([401, 409, 429])

/**
 * Keeps PayPal's error in the details. A refusal (4xx other than 401/409/429) ends the
 * payment: it is marked failed (or expired) and the buyer sees the done page. Anything
 * else (5xx after retries, timeouts, bad credentials, a call still running, rate limits)
 * may succeed later: the error is rethrown and the token stays usable.
 */
export function recordFailure (record: PaypalRecord, error: unknown): void {
  if (!isPaypalCallError(error)) throw error
  record.error = error.paypal
  if (!isFinalRefusal(error)) throw error
  record.state = FINAL_ERRORS[error.paypal.name] ?? 'failed'
}

/** PayPal looked at the call and said no (a 4xx other than 401/409/429): the same call will never work. */
export function isFinalRefusal (error: PaypalCallError): boolean {
  return !isOutcomeUnknown(error) && !TRANSIENT_STATUSES.has(error.httpStatus as number)
}

/** No answer or a 5xx, even after retries: PayPal may or may not have done the work. */
export function isOutcomeUnknown (error: PaypalCallError): boolean {
  return error.httpStatus === undefined || error.httpStatus >= 500
}

/**
 * Refusals of execute that the buyer can still put right: PayPal has no approval yet
 * (PAYMENT_NOT_APPROVED_FOR_EXECUTION: an early or forged return), or not from this payer
 * (INVALID_PAYER_ID: a wrong PayerID in the URL). The real buyer may approve and come back.
 */
const BUYER_CAN_STILL_APPROVE: ReadonlySet<string> = new Set(['PAYMENT_NOT_APPROVED_FOR_EXECUTION', 'INVALID_PAYER_ID'])

export function buyerCanStillApprove (error: PaypalCallError): boolean {
  return BUYER_CAN_STILL_APPROVE.has(error.paypal.name)
}
