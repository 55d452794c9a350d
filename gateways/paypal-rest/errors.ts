import createError from '@fastify/error'
import { withKind } from '../../plugins/core/engine/index.ts'

/*
 * The paypal_rest gateway's own codes (docs/errors.md, "PayPal REST gateway"): what Paywire
 * refuses before PayPal hears of a payment, because PayPal would refuse it (or, worse, take
 * another amount than the payment's). 4xx: the payment as prepared cannot go to PayPal, and
 * nothing was sent or recorded, so the shop can correct it and start again.
 */

// Amount and currency limits are PayPal's, whichever API: they live in the shared layer.
export { PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE, PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED } from '../paypal-shared/errors.ts'
export const PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH = withKind('invalid_request', createError<[string, string, string]>(
  'PAYWIRE_ERR_PAYPAL_AMOUNT_MISMATCH',
  'The payment\'s details would have PayPal charge %s, not the payment\'s amount (%s minor units of %s): set one transaction whose amount is the payment\'s, or none (the gateway converts it).',
  400
))
export const PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED = withKind('not_supported', createError<[string]>(
  'PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED',
  'The paypal_rest gateway takes intent "sale" only, not %s: it has no flow to capture or void an authorization or order later, so such a payment could never complete.',
  400
))
