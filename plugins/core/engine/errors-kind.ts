import type { FastifyErrorConstructor } from '@fastify/error'

/*
 * What kind of failure a coded error is, for the layers that answer people and programs
 * (GraphQL's typed errors, the buyer's pages, log levels): they decide by kind, so a gateway's
 * new code is answered right without a table naming it. Every coded error declares one
 * (docs/errors.md, column "kind").
 */
export const ERROR_KINDS = [
  /** The caller sent something wrong; correcting it is the fix. */
  'invalid_request',
  /** What the request names does not exist (a payment, a token, a gateway). */
  'not_found',
  /** It existed and was used up (a payment link used before). */
  'gone',
  /** The caller may not do this. */
  'not_authorized',
  /** The payment, as it stands, does not allow it (its status, what remains to refund). */
  'not_allowed',
  /** The gateway cannot do this at all. */
  'not_supported',
  /** Another request holds or just changed the payment: retrying shortly is the answer. */
  'busy',
  /** The provider looked and said no for good: the same call never works. */
  'provider_refused',
  /** The provider declined the buyer's card or funding source: the buyer chooses another. */
  'instrument_declined',
  /** The provider needs the buyer (another instrument, 3-D Secure) before it goes on. */
  'payer_action_required',
  /** The provider did not answer, failed or limited the rate after retries: try again later. */
  'provider_unavailable',
  /** A storage Paywire depends on is down or refusing writes: try again later. */
  'unavailable',
  /** The application's setup or its use of Paywire is wrong: a developer fixes it. */
  'misconfigured',
  /** A bug in Paywire or a gateway. */
  'internal'
] as const

export type ErrorKind = typeof ERROR_KINDS[number]

const KINDS: ReadonlySet<string> = new Set(ERROR_KINDS)

export type KindedErrorConstructor<C extends FastifyErrorConstructor<any, any>> = C & { readonly kind: ErrorKind }

/**
 * Declares the kind of a coded error class (createError's): every instance reads it from the
 * prototype. An instance may carry its own (a provider error that is a refusal or an outage).
 */
export function withKind<C extends FastifyErrorConstructor<any, any>> (kind: ErrorKind, ErrorClass: C): KindedErrorConstructor<C> {
  // Writable, so an instance can say more precisely what it is without a subclass.
  Object.defineProperty(ErrorClass.prototype, 'kind', { value: kind, writable: true, enumerable: false, configurable: true })
  Object.defineProperty(ErrorClass, 'kind', { value: kind, enumerable: true })
  return ErrorClass as KindedErrorConstructor<C>
}

/** The kind an error declares; undefined for errors that declare none (not coded, or a class without withKind). */
export function kindOf (error: unknown): ErrorKind | undefined {
  if (!(error instanceof Error)) return undefined
  const kind = (error as { kind?: unknown }).kind
  return typeof kind === 'string' && KINDS.has(kind) ? kind as ErrorKind : undefined
}

const PROVIDER_KINDS: ReadonlySet<ErrorKind> = new Set(['provider_refused', 'instrument_declined', 'payer_action_required', 'provider_unavailable'])

/** The provider, not Paywire nor the caller, stopped the request. */
export function isProviderKind (kind: ErrorKind | undefined): boolean {
  return kind !== undefined && PROVIDER_KINDS.has(kind)
}

const CLIENT_KINDS: ReadonlySet<ErrorKind> = new Set(['invalid_request', 'not_found', 'gone', 'not_authorized', 'not_allowed', 'not_supported', 'busy'])

/**
 * A failure of the caller's request (its input, its timing, the payment's state), not of the
 * application: logged at info or warn, never at error, which is for what needs a developer.
 * The HTTP status decides where there is one (4xx), else the kind.
 */
export function isClientFailure (error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null | undefined)?.statusCode
  if (typeof status === 'number') return status >= 400 && status < 500
  const kind = kindOf(error)
  return kind !== undefined && CLIENT_KINDS.has(kind)
}
