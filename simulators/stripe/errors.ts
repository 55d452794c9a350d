import type Stripe from 'stripe'

/*
 * Stripe's error shape and statuses (https://docs.stripe.com/api/errors): `{ error: { type, code,
 * decline_code, message, param, doc_url, … } }`; 400 bad request, 401 no valid API key, 402 the
 * parameters were valid but the request failed (card errors), 404 not found, 409 a conflict with
 * another request (the same idempotency key), 429 too many requests, 5xx Stripe's side.
 */

export type ErrorType = 'api_error' | 'card_error' | 'idempotency_error' | 'invalid_request_error'

export interface StripeErrorBody {
  error: {
    type: ErrorType
    message: string
    code?: string
    decline_code?: string
    param?: string
    doc_url?: string
    charge?: string
    payment_intent?: Stripe.PaymentIntent
  }
}

/** Error codes about the request's own parameters: Stripe keeps no idempotent result for them (https://docs.stripe.com/idempotency). */
const VALIDATION_CODES = new Set(['parameter_missing', 'parameter_unknown', 'parameter_invalid_integer', 'parameter_invalid_empty', 'parameter_invalid_string_empty', 'resource_missing'])

export class StripeApiError extends Error {
  readonly statusCode: number
  readonly body: StripeErrorBody
  constructor (statusCode: number, error: StripeErrorBody['error']) {
    super(error.message)
    this.statusCode = statusCode
    // doc_url: each code has its page under https://docs.stripe.com/error-codes.
    this.body = { error: error.code === undefined ? error : { ...error, doc_url: `https://docs.stripe.com/error-codes/${error.code.replaceAll('_', '-')}` } }
  }

  /** Whether an `Idempotency-Key` keeps this answer: not when the parameters failed validation. */
  get saved (): boolean {
    return this.body.error.code === undefined ? this.statusCode >= 500 : !VALIDATION_CODES.has(this.body.error.code)
  }
}

export function invalidRequest (message: string, code?: string, param?: string, statusCode = 400): StripeApiError {
  return new StripeApiError(statusCode, { type: 'invalid_request_error', message, ...(code === undefined ? {} : { code }), ...(param === undefined ? {} : { param }) })
}

export function missingParam (param: string): StripeApiError {
  return invalidRequest(`Missing required param: ${param}.`, 'parameter_missing', param)
}

export function unknownParam (param: string): StripeApiError {
  return invalidRequest(`Received unknown parameter: ${param}`, 'parameter_unknown', param)
}

/** A value outside what the parameter takes: Stripe answers without a `code`, naming the `param`. */
export function invalidParam (param: string, message: string): StripeApiError {
  return invalidRequest(message, undefined, param)
}

/** `No such payment_intent: 'pi_123'`, 404 `resource_missing` (https://docs.stripe.com/error-codes). */
export function noSuch (kind: string, id: string, param = 'id'): StripeApiError {
  return invalidRequest(`No such ${kind}: '${id}'`, 'resource_missing', param, 404)
}

export function unexpectedState (message: string): StripeApiError {
  return invalidRequest(message, 'payment_intent_unexpected_state')
}

/** 500 `api_error`, what a fault answers (https://docs.stripe.com/api/errors). */
export function apiError (statusCode = 500): StripeApiError {
  return new StripeApiError(statusCode, { type: 'api_error', message: 'An unknown error occurred' })
}

export function rateLimited (): StripeApiError {
  return new StripeApiError(429, { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests hit the API too quickly. We recommend an exponential backoff of your requests.' })
}
