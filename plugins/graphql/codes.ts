import createError from '@fastify/error'
import { withKind } from '../core/engine/index.ts'

/*
 * The GraphQL plugin's own codes (the engine's are in plugins/core/engine/errors.ts; all of
 * them are documented in docs/errors.md). Exported as graphqlErrorCodes by paywire/graphql.
 * errors.ts turns these and the engine's into the schema's typed errors.
 */

export const PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL',
  'Invalid afterUrl: %s.',
  400
))
export const PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED',
  'This Idempotency-Key was already used for a %s with different input. Use a new key for a new operation.',
  422
))
export const PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS = withKind('busy', createError<[string]>(
  'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS',
  'A %s with this Idempotency-Key is still running. Retry with the same key in a moment.',
  409
))
export const PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED = withKind('not_authorized', createError<[string]>(
  'PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED',
  'Not authorized to run %s. The application decides through the authorize(context, operation) option of paywire-graphql.',
  403
))
export const PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND = withKind('not_found', createError(
  'PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND',
  'No payment matches.',
  404
))
export const PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED = withKind('not_supported', createError<[string, string]>(
  'PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED',
  'Gateway "%s" cannot run %s on this payment from the server.',
  422
))
export const PAYWIRE_ERR_GRAPHQL_INTERNAL = withKind('internal', createError(
  'PAYWIRE_ERR_GRAPHQL_INTERNAL',
  'An unexpected error occurred; it has been logged.',
  500
))
export const PAYWIRE_ERR_GRAPHQL_SCHEMA_CONFLICT = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_GRAPHQL_SCHEMA_CONFLICT',
  'Cannot add the Paywire GraphQL schema to the application\'s: %s. Paywire\'s type and field names are listed in plugins/graphql/README.md.',
  500, TypeError
))
