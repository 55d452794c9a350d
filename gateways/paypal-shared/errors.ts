import createError from '@fastify/error'
import { withKind } from '../../plugins/core/engine/index.ts'

/*
 * What PayPal refuses whichever API a gateway speaks (v1 Payments or v2 Orders): currencies
 * it does not take and totals outside its limits. Checked before any call, so nothing is sent
 * or recorded and the shop can correct the payment (docs/errors.md, "PayPal REST gateway").
 */

export const PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED = withKind('invalid_request', createError<[string, string]>(
  'PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED',
  'PayPal does not accept payments in %s: its REST API takes %s.',
  400, RangeError
))
export const PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE = withKind('invalid_request', createError<[string, string, string]>(
  'PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE',
  'Amount %s %s is outside PayPal\'s limits: %s.',
  400, RangeError
))
