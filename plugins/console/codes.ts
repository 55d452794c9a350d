import createError from '@fastify/error'
import { withKind } from '../core/engine/index.ts'

/*
 * The operator console's own codes (all documented in docs/errors.md). Exported as
 * consoleErrorCodes by paywire/console. Each is answered as an HTML page with its status.
 */

export const PAYWIRE_ERR_CONSOLE_AUTHORIZE_REQUIRED = withKind('misconfigured', createError(
  'PAYWIRE_ERR_CONSOLE_AUTHORIZE_REQUIRED',
  'paywire-console needs an authorize(request, operation) option deciding who may use it: the console refunds and cancels payments, so it is never open to everyone.',
  500, TypeError
))
export const PAYWIRE_ERR_CONSOLE_NOT_AUTHORIZED = withKind('not_authorized', createError<[string]>(
  'PAYWIRE_ERR_CONSOLE_NOT_AUTHORIZED',
  'You are not allowed to %s in the payment console. Ask whoever runs this shop for access.',
  403
))
export const PAYWIRE_ERR_CONSOLE_FORM_EXPIRED = withKind('invalid_request', createError(
  'PAYWIRE_ERR_CONSOLE_FORM_EXPIRED',
  'This form was not sent from the console page it belongs to (or the console\'s cookie is gone). Open the payment again and repeat the action; nothing was done.',
  403
))
export const PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND = withKind('not_found', createError(
  'PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND',
  'No payment has this id.',
  404
))
export const PAYWIRE_ERR_CONSOLE_OPERATION_NOT_SUPPORTED = withKind('not_supported', createError<[string, string]>(
  'PAYWIRE_ERR_CONSOLE_OPERATION_NOT_SUPPORTED',
  'Gateway "%s" cannot run %s on this payment from the console.',
  422
))
export const PAYWIRE_ERR_CONSOLE_FORM_REUSED = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_CONSOLE_FORM_REUSED',
  'This confirmation was already used for another %s. Open the payment again to start a new one.',
  422
))
export const PAYWIRE_ERR_CONSOLE_IN_PROGRESS = withKind('busy', createError<[string]>(
  'PAYWIRE_ERR_CONSOLE_IN_PROGRESS',
  'This %s is still running. Reload the payment in a moment to see its result.',
  409
))
