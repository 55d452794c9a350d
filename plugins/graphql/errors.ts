import mercurius from 'mercurius'
import type { ProviderError } from '../core/engine/index.ts'
import { RESULT_UNIONS, type ResultUnion } from './schema.ts'
import { PAYWIRE_ERR_GRAPHQL_INTERNAL } from './codes.ts'

/*
 * Inside the plugin, typed errors are thrown as Paywire's coded errors (one source for
 * codes and messages); at each resolver's boundary they become members of its result
 * union. Anything else is logged and answered as PAYWIRE_ERR_GRAPHQL_INTERNAL: messages
 * of unexpected errors, stack traces and provider bodies never reach the client.
 */

/** The GraphQL type of each coded error that has one. */
const TYPE_BY_CODE: Readonly<Record<string, string>> = {
  PAYWIRE_ERR_UNKNOWN_GATEWAY: 'UnknownGateway',
  PAYWIRE_ERR_INVALID_AMOUNT: 'InvalidAmount',
  PAYWIRE_ERR_UNKNOWN_CURRENCY: 'InvalidCurrency',
  PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL: 'InvalidAfterUrl',
  PAYWIRE_ERR_VALIDATION: 'InvalidInput',
  PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED: 'IdempotencyKeyReused',
  PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS: 'IdempotencyKeyInProgress',
  PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED: 'NotAuthorized',
  PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND: 'PaymentNotFound',
  PAYWIRE_ERR_TOKEN_NOT_FOUND: 'TokenNotFound',
  PAYWIRE_ERR_OPERATION_NOT_ALLOWED: 'OperationNotAllowed',
  PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED: 'OperationNotSupported',
  // Another request holds the payment, or changed it under this one: retrying is the answer to all three.
  PAYWIRE_ERR_PAYMENT_BUSY: 'PaymentBusy',
  PAYWIRE_ERR_CONCURRENT_UPDATE: 'PaymentBusy',
  PAYWIRE_ERR_CLAIM_LOST: 'PaymentBusy',
  PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED: 'RefundAmountExceeded',
  PAYWIRE_ERR_PROVIDER: 'ProviderError'
}

const kFields = Symbol('paywire.graphql.fields')

interface CodedError extends Error {
  code: string
  [kFields]?: Record<string, unknown>
}

/** Attaches the fields the error's GraphQL type carries besides code and message. */
export function withFields<E extends Error> (error: E, fields: Record<string, unknown>): E {
  const coded = error as unknown as CodedError
  coded[kFields] = { ...coded[kFields], ...fields }
  return error
}

/** Like withFields, for fields the error does not carry yet; values that are not Errors pass through. */
export function withDefaultFields (error: unknown, fields: Record<string, unknown>): unknown {
  if (error instanceof Error) {
    const coded = error as CodedError
    coded[kFields] = { ...fields, ...coded[kFields] }
  }
  return error
}

export interface ErrorResult {
  __typename: string
  code: string
  message: string
  [field: string]: unknown
}

function isCoded (error: unknown): error is CodedError {
  return error instanceof Error && typeof (error as CodedError).code === 'string'
}

export function isCode (error: unknown, code: string): boolean {
  return isCoded(error) && error.code === code
}

function providerFields (error: ProviderError): Record<string, unknown> {
  return { provider: error.provider, providerCode: error.providerCode, debugId: error.debugId ?? null }
}

/** The union member for a coded error the union declares; undefined for anything else. */
export function toErrorResult (error: unknown, union: ResultUnion): ErrorResult | undefined {
  if (!isCoded(error)) return undefined
  const typename = TYPE_BY_CODE[error.code]
  if (typename === undefined || !(RESULT_UNIONS[union] as readonly string[]).includes(typename)) return undefined
  if (error.code === 'PAYWIRE_ERR_PROVIDER') {
    // The provider's own message may quote its response: only the names we trust go out.
    const fields = providerFields(error as ProviderError)
    return { __typename: typename, code: error.code, message: `${String(fields.provider)} refused the request (${String(fields.providerCode)}).`, ...fields }
  }
  return { __typename: typename, code: error.code, message: error.message, ...error[kFields] }
}

export interface ErrorLog {
  error (object: unknown, message: string): void
}

/** What an unexpected failure looks like to the client, once logged. */
export function internalError (error: unknown, log: ErrorLog): Error {
  log.error({ err: error }, 'paywire-graphql: unexpected error')
  // A storage that is down says so (its message carries no internals): the client may retry.
  if (isCode(error, 'PAYWIRE_ERR_STORAGE_UNAVAILABLE')) return new mercurius.ErrorWithProps((error as Error).message, { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
  const internal = new PAYWIRE_ERR_GRAPHQL_INTERNAL()
  return new mercurius.ErrorWithProps(internal.message, { code: internal.code })
}

/** Runs a resolver body and answers typed errors as union members. */
export async function answer<T> (union: ResultUnion, log: ErrorLog, body: () => Promise<T>): Promise<T | ErrorResult> {
  try {
    return await body()
  } catch (error) {
    const result = toErrorResult(error, union)
    if (result !== undefined) return result
    throw internalError(error, log)
  }
}
