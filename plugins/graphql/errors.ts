import mercurius from 'mercurius'
import { isClientFailure, isProviderKind, kindOf, type ErrorKind } from '../core/engine/index.ts'
import { RESULT_UNIONS, REQUIRED_FIELDS, type ResultUnion } from './schema.ts'
import { PAYWIRE_ERR_GRAPHQL_INTERNAL } from './codes.ts'

/*
 * Inside the plugin, typed errors are thrown as Paywire's coded errors (one source for
 * codes and messages); at each resolver's boundary they become members of its result
 * union, chosen by the error's kind (docs/errors.md), so a gateway's codes, present or
 * future, need no entry here. Anything else is logged and answered as
 * PAYWIRE_ERR_GRAPHQL_INTERNAL: messages of unexpected errors, stack traces and provider
 * bodies never reach the client.
 */

/** Paywire's own codes whose types say more than their kind does, with fields of their own. */
const TYPE_BY_CODE: Readonly<Record<string, string>> = {
  PAYWIRE_ERR_UNKNOWN_GATEWAY: 'UnknownGateway',
  PAYWIRE_ERR_INVALID_AMOUNT: 'InvalidAmount',
  PAYWIRE_ERR_UNKNOWN_CURRENCY: 'InvalidCurrency',
  PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL: 'InvalidAfterUrl',
  PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED: 'IdempotencyKeyReused',
  PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS: 'IdempotencyKeyInProgress',
  PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND: 'PaymentNotFound',
  PAYWIRE_ERR_TOKEN_NOT_FOUND: 'TokenNotFound',
  PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED: 'RefundAmountExceeded'
}

/** Every other coded error, whichever part or gateway defines it, by its kind. */
const TYPE_BY_KIND: Readonly<Partial<Record<ErrorKind, string>>> = {
  invalid_request: 'InvalidInput',
  not_authorized: 'NotAuthorized',
  not_allowed: 'OperationNotAllowed',
  not_supported: 'OperationNotSupported',
  // Another request holds the payment, or changed it under this one: retrying is the answer.
  busy: 'PaymentBusy',
  provider_refused: 'ProviderError',
  instrument_declined: 'ProviderError',
  payer_action_required: 'ProviderError',
  provider_unavailable: 'ProviderError'
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

interface ProviderNames {
  provider?: unknown
  providerCode?: unknown
  debugId?: unknown
}

/** The provider's names the error carries; a gateway's error that names none is its gateway's and its own code. */
function providerFields (error: CodedError): Record<string, unknown> {
  const names = error as CodedError & ProviderNames
  return {
    provider: typeof names.provider === 'string' ? names.provider : error[kFields]?.gateway,
    providerCode: typeof names.providerCode === 'string' ? names.providerCode : error.code,
    debugId: typeof names.debugId === 'string' ? names.debugId : null
  }
}

/** The type a union member answers this error with: its code's own if the union has it, else its kind's. */
function typeOf (error: CodedError, union: ResultUnion): { typename: string, byKind: boolean } | undefined {
  const members = RESULT_UNIONS[union] as readonly string[]
  const own = TYPE_BY_CODE[error.code]
  if (own !== undefined && members.includes(own)) return { typename: own, byKind: false }
  const kind = kindOf(error)
  const typename = kind === undefined ? undefined : TYPE_BY_KIND[kind]
  return typename !== undefined && members.includes(typename) ? { typename, byKind: true } : undefined
}

/** The union member for a coded error the union declares; undefined for anything else. */
export function toErrorResult (error: unknown, union: ResultUnion): ErrorResult | undefined {
  if (!isCoded(error)) return undefined
  const type = typeOf(error, union)
  if (type === undefined) return undefined
  const { typename } = type
  if (isProviderKind(kindOf(error))) {
    // The provider's own message may quote its response: only the names we trust go out.
    const fields = providerFields(error)
    if (fields.provider === undefined) return undefined
    return { __typename: typename, code: error.code, message: `${String(fields.provider)} refused the request (${String(fields.providerCode)}).`, ...fields }
  }
  const result: ErrorResult = { __typename: typename, code: error.code, message: error.message, ...error[kFields] }
  // A type chosen by kind is answered only when the error carries what the type promises.
  if (type.byKind && (REQUIRED_FIELDS[typename] ?? []).some((field) => result[field] === undefined || result[field] === null)) return undefined
  return result
}

export interface ErrorLog {
  error (object: unknown, message: string): void
  info? (object: unknown, message: string): void
}

/** What a failure no union member answers looks like to the client, once logged. */
export function internalError (error: unknown, log: ErrorLog): Error {
  if (isCoded(error) && isClientFailure(error)) {
    // The caller's request, not the application, failed: not an alarm.
    log.info?.({ err: error }, 'paywire-graphql: request refused')
    // Only errors that declare a kind are Paywire's coded errors, whose messages carry no secrets.
    if (kindOf(error) !== undefined) return new mercurius.ErrorWithProps(error.message, { code: error.code })
    const internal = new PAYWIRE_ERR_GRAPHQL_INTERNAL()
    return new mercurius.ErrorWithProps(internal.message, { code: internal.code })
  }
  log.error({ err: error }, 'paywire-graphql: unexpected error')
  // A storage that is down says so (its message carries no internals): the client may retry. A
  // Payment storage that cannot search says so too, rather than an anonymous internal error.
  if (isCoded(error) && (kindOf(error) === 'unavailable' || error.code === 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED')) return new mercurius.ErrorWithProps(error.message, { code: error.code })
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
