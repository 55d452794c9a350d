import createError from '@fastify/error'
import { providerError, withKind, type ErrorKind } from '../../plugins/core/engine/index.ts'
import Stripe from 'stripe'

/*
 * The stripe gateway's coded errors (`stripeErrorCodes` from `paywire/gateways/stripe`,
 * documented in docs/errors.md under "Stripe gateway"). Messages name options and Stripe's
 * codes, never a key or a secret.
 */

export const PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH',
  'Gateway "%s": %s. Test keys (sk_test_, pk_test_) and live keys (sk_live_, pk_live_) never mix, and a live key is only sent to api.stripe.com.',
  500, TypeError
))

export const PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED = withKind('invalid_request', createError<[string, string, string]>(
  'PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED',
  'Amount %s %s (minor units) cannot be charged through Stripe: %s.',
  400, RangeError
))

export const PAYWIRE_ERR_STRIPE_CAPTURE_AMOUNT_EXCEEDED = withKind('not_allowed', createError<[number, number]>(
  'PAYWIRE_ERR_STRIPE_CAPTURE_AMOUNT_EXCEEDED',
  'Cannot capture %d minor units: the authorization holds %d.',
  400, RangeError
))

export const PAYWIRE_ERR_STRIPE_PAYOUT_NOT_SUPPORTED = withKind('not_supported', createError<[string]>(
  'PAYWIRE_ERR_STRIPE_PAYOUT_NOT_SUPPORTED',
  'Gateway "%s" cannot pay out: sending money to a third party through Stripe needs Stripe Connect, which the stripe gateway does not use.',
  400
))

/** The error classes of the SDK: everything it throws for an API call is one of them. */
export function isStripeError (error: unknown): error is Stripe.errors.StripeError {
  return error instanceof Stripe.errors.StripeError
}

/** No answer, a 5xx, a key still in use (409) or a rate limit (429): Stripe may not have done the work yet, or may have. */
export function isOutcomeUnknown (error: Stripe.errors.StripeError): boolean {
  const status = error.statusCode
  return status === undefined || status >= 500 || status === 409 || status === 429
}

/** A 4xx answer about the call itself (not the key): the same call never works. */
export function isFinalRefusal (error: Stripe.errors.StripeError): boolean {
  return !isOutcomeUnknown(error) && error.statusCode !== 401 && error.statusCode !== 403
}

/** Stripe's own name for what went wrong: its error code, else its error type. */
export function stripeCodeOf (error: Stripe.errors.StripeError): string {
  return error.code ?? error.rawType ?? error.type
}

/**
 * Stripe's error as PAYWIRE_ERR_PROVIDER: `providerCode` is Stripe's code (`charge_disputed`,
 * `rate_limit`…), `debugId` its Request-Id (what Stripe's support asks for); the SDK's error is
 * the cause. Whether to retry is in the record (`details.error.refused`) and in Stripe's code.
 */
export function codedError (error: Stripe.errors.StripeError): Error {
  return providerError({ provider: 'Stripe', providerCode: stripeCodeOf(error), message: error.message, debugId: error.requestId, cause: error, kind: stripeKindOf(error) })
}

/** What Stripe's answer means for whoever handles it: a card error is the buyer's to fix, an outage anybody's to retry. */
export function stripeKindOf (error: Stripe.errors.StripeError): ErrorKind {
  if (isOutcomeUnknown(error)) return 'provider_unavailable'
  if (error.code === 'authentication_required') return 'payer_action_required'
  if (error.type === 'StripeCardError') return 'instrument_declined'
  return 'provider_refused'
}

/** Stripe answered no for good (a 4xx other than 401/403/409/429). */
export function isRefusal (error: unknown): error is Stripe.errors.StripeError {
  return isStripeError(error) && isFinalRefusal(error)
}

/** What an action throws: Stripe's error coded (PAYWIRE_ERR_PROVIDER), anything else (a failed checkpoint) as it is. */
export function paywireError (error: unknown): unknown {
  return isStripeError(error) ? codedError(error) : error
}

/** What a record keeps of an error: Stripe's type, code, decline code, message and request id (never a raw body). */
export function recordedError (error: Stripe.errors.StripeError): Record<string, unknown> {
  const kept: Record<string, unknown> = {
    type: error.rawType ?? error.type,
    code: error.code ?? null,
    decline_code: error.decline_code ?? null,
    message: error.message,
    request_id: error.requestId ?? null,
    status_code: error.statusCode ?? null
  }
  // Stripe looked and said no: the same call never works (a retry needs another request).
  kept.refused = isFinalRefusal(error)
  return kept
}
