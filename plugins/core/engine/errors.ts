import createError from '@fastify/error'
import { withKind, type ErrorKind } from './errors-kind.ts'

/*
 * The engine's errors (the core plugin uses them too; the Redis and GraphQL plugins own their
 * codes in their own errors modules). Every situation a user can meet has its own
 * PAYWIRE_ERR_* code, documented in docs/errors.md (code, meaning, fix). Codes are
 * API: never reuse a retired one. Messages never carry secrets: they name options,
 * never their values.
 *
 * Status codes matter where an error crosses HTTP: 4xx when the caller sent something
 * wrong, 5xx when the application or a gateway is misconfigured or broken.
 */

/** True when `error` is a Paywire (or any coded) error with this code. */
export function isErrorCode (error: unknown, code: string): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === code
}

/** Builder and registry */
export const PAYWIRE_ERR_GATEWAY_FACTORY_MISSING = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_GATEWAY_FACTORY_MISSING',
  'Gateway "%s" has no factory: pass { factory: "<factory name>" } to addGateway().',
  500, TypeError
))
export const PAYWIRE_ERR_UNKNOWN_GATEWAY = withKind('not_found', createError<[string, string]>(
  'PAYWIRE_ERR_UNKNOWN_GATEWAY',
  'Gateway "%s" is not registered.%s',
  404
))
export const PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY = withKind('misconfigured', createError<[string, string, string, string]>(
  'PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY',
  'Gateway factory "%s" (used by gateway "%s") is not registered.%s Registered factories: %s. Register the factory (its gateway plugin, or addGatewayFactory()) before the gateway is built.',
  500
))
export const PAYWIRE_ERR_INVALID_GATEWAY_FACTORY = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_INVALID_GATEWAY_FACTORY',
  'Gateway factory "%s" must be a CoreGatewayFactory (configureContainer, getActions, getExtensions, createGateway) or a 1.x GatewayFactory.',
  500, TypeError
))
export const PAYWIRE_ERR_STORAGE_NOT_REGISTERED = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_STORAGE_NOT_REGISTERED',
  'No storage is registered for model "%s". Storages exist for: %s. Call addStorage(Model, storage) or addDefaultStorages().',
  500
))
export const PAYWIRE_ERR_DUPLICATE_MODEL_NAME = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_DUPLICATE_MODEL_NAME',
  'Two storages use the model name "%s". Tokens store models by name: give one storage a distinct modelName.',
  500, TypeError
))

/** Gateway execution */
export const PAYWIRE_ERR_REQUEST_NOT_SUPPORTED = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED',
  'Request %s is not supported. %s',
  500
))
export const PAYWIRE_ERR_ENDLESS_CYCLE = withKind('internal', createError<[number]>(
  'PAYWIRE_ERR_ENDLESS_CYCLE',
  'Possible endless cycle detected: execute() was nested %d times. An action probably executes a request that leads back to itself.',
  500
))
export const PAYWIRE_ERR_NON_ERROR_THROWN = withKind('internal', createError<[string, { cause: unknown }]>(
  'PAYWIRE_ERR_NON_ERROR_THROWN',
  'A gateway action or extension threw a value that is not an Error: %s. The value is kept as the cause.',
  500
))
export const PAYWIRE_ERR_REDIRECT_URL_EMPTY = withKind('internal', createError(
  'PAYWIRE_ERR_REDIRECT_URL_EMPTY',
  'Cannot redirect to an empty URL.',
  500, TypeError
))
export const PAYWIRE_ERR_UNSUPPORTED_REPLY = withKind('internal', createError<[string]>(
  'PAYWIRE_ERR_UNSUPPORTED_REPLY',
  'Cannot turn reply %s into an HTTP response: gateways may only reply with HttpResponse, HttpRedirect or HttpPostRedirect. This is a bug in the gateway.',
  500
))

/** Models and money */
export const PAYWIRE_ERR_INVALID_MODEL = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_INVALID_MODEL',
  'Invalid model given: expected an instance of %s but got %s.',
  500, TypeError
))
export const PAYWIRE_ERR_MODEL_NOT_PERSISTED = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_MODEL_NOT_PERSISTED',
  'The %s must be stored (storage.update) before a token or identity can point at it.',
  500
))
export const PAYWIRE_ERR_INVALID_AMOUNT = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_INVALID_AMOUNT',
  'Invalid amount %s: amounts are non-negative integers in the currency\'s minor units (1234 for 12.34 EUR).',
  400, RangeError
))
export const PAYWIRE_ERR_UNKNOWN_CURRENCY = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_UNKNOWN_CURRENCY',
  'Unknown currency "%s": use an ISO 4217 alphabetic (EUR) or numeric (978) code.',
  400, RangeError
))

export const PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED = withKind('not_allowed', createError<[number, number]>(
  'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED',
  'Cannot refund %d minor units: only %d remain refundable.',
  400, RangeError
))

/**
 * A payment provider refused or failed a call. `provider`, `providerCode` (PayPal's error
 * name) and `debugId` (what the provider's support asks for) are kept on the error; the
 * provider's raw body never is.
 */
export const PAYWIRE_ERR_PROVIDER = withKind('provider_refused', createError<[string, string, string, { cause: unknown }]>(
  'PAYWIRE_ERR_PROVIDER',
  '%s refused the request: %s (%s).',
  502
))

export interface ProviderErrorDetails {
  provider: string
  providerCode: string
  message: string
  debugId?: string
  cause?: unknown
  /** What the provider's answer means (a refusal by default): an outage, a declined card… */
  kind?: ErrorKind
}

export type ProviderError = InstanceType<typeof PAYWIRE_ERR_PROVIDER> & {
  provider: string
  providerCode: string
  debugId: string | undefined
}

export function providerError (details: ProviderErrorDetails): ProviderError {
  const error = new PAYWIRE_ERR_PROVIDER(details.provider, details.message, details.providerCode, { cause: details.cause }) as ProviderError
  error.provider = details.provider
  error.providerCode = details.providerCode
  error.debugId = details.debugId
  if (details.kind !== undefined) Object.assign(error, { kind: details.kind })
  return error
}

export const PAYWIRE_ERR_OPERATION_NOT_ALLOWED = withKind('not_allowed', createError<[string, string]>(
  'PAYWIRE_ERR_OPERATION_NOT_ALLOWED',
  '%s is not possible for a payment in status "%s".',
  409
))
export const PAYWIRE_ERR_TOKEN_REQUIRED = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_TOKEN_REQUIRED',
  '%s needs the capture token (its URL is where the provider sends the buyer back): execute new Capture(token).',
  500
))

/** Consistency: versioned writes and one writer per payment (docs/consistency.md) */
export const PAYWIRE_ERR_CONCURRENT_UPDATE = withKind('busy', createError<[string, string]>(
  'PAYWIRE_ERR_CONCURRENT_UPDATE',
  'The %s "%s" was changed by another writer since it was read; nothing was written. Read it again and retry.',
  409
))
export const PAYWIRE_ERR_PAYMENT_BUSY = withKind('busy', createError(
  'PAYWIRE_ERR_PAYMENT_BUSY',
  'The payment is being changed by another request; retry shortly.',
  409
))
export const PAYWIRE_ERR_CLAIM_LOST = withKind('busy', createError<[string]>(
  'PAYWIRE_ERR_CLAIM_LOST',
  'This request lost its claim on %s (it ran longer than the claim lasted and another request took over); nothing more was written. Retry.',
  409
))
export const PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT = withKind('gone', createError(
  'PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT',
  'Another request used this payment link up before this one could commit; nothing this request did was written.',
  409
))
export const PAYWIRE_ERR_STORAGE_UNAVAILABLE = withKind('unavailable', createError<[string, { cause: unknown }?]>(
  'PAYWIRE_ERR_STORAGE_UNAVAILABLE',
  'The %s storage is unavailable; nothing was written. Retry shortly.',
  503
))
export const PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED = withKind('not_supported', createError<[string]>(
  'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED',
  'The %s storage does not implement PaymentSearch (searchPayments, attentionDue): payments cannot be searched without reading every one, which Paywire does not do.',
  501
))
export const PAYWIRE_ERR_TOKEN_USED = withKind('gone', createError(
  'PAYWIRE_ERR_TOKEN_USED',
  'This payment link was already used.',
  410
))
export const PAYWIRE_ERR_MEMORY_STORAGE_IN_PRODUCTION = withKind('misconfigured', createError(
  'PAYWIRE_ERR_MEMORY_STORAGE_IN_PRODUCTION',
  'Payments would be kept in process memory while NODE_ENV is production: a restart or a crash would lose every payment. Give the paywire plugin a durable backend (paywire-postgres, paywire-redis), or set allowMemoryStorage: true if losing them is acceptable (docs/durability.md).',
  500
))
export const PAYWIRE_ERR_RECORD_NOT_STORABLE = withKind('invalid_request', createError<[string, string]>(
  'PAYWIRE_ERR_RECORD_NOT_STORABLE',
  'The %s cannot be stored: %s.',
  400
))

/** Templates */
export const PAYWIRE_ERR_TEMPLATE_NOT_FOUND = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_TEMPLATE_NOT_FOUND',
  'Template "%s" was not found. Searched: %s. Add its directory to paywire.paths under its namespace.',
  500
))

/** Tokens */
export const PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED',
  'The token path "%s" is not configured. Configured paths: %s. Use setGenericTokenFactoryPaths() to add it.',
  500
))
export const PAYWIRE_ERR_BASE_URL_REQUIRED = withKind('misconfigured', createError(
  'PAYWIRE_ERR_BASE_URL_REQUIRED',
  'Token URLs need an absolute base URL (for example https://shop.example): set it with setBaseUrl() or the plugin\'s baseUrl option.',
  500
))
export const PAYWIRE_ERR_INVALID_BASE_URL = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_INVALID_BASE_URL',
  'The base URL "%s" is not an absolute http(s) URL.',
  500, TypeError
))
export const PAYWIRE_ERR_TOKEN_PARAMETER_MISSING = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_TOKEN_PARAMETER_MISSING',
  'The request carries no payment token (route parameter, query or body field "%s").',
  400
))
export const PAYWIRE_ERR_TOKEN_NOT_FOUND = withKind('not_found', createError(
  'PAYWIRE_ERR_TOKEN_NOT_FOUND',
  'This payment link is unknown or has expired.',
  404
))
export const PAYWIRE_ERR_TOKEN_PATH_MISMATCH = withKind('invalid_request', createError(
  'PAYWIRE_ERR_TOKEN_PATH_MISMATCH',
  'This payment token belongs to another URL. If the application runs behind a proxy, check its base URL.',
  400
))
export const PAYWIRE_ERR_GET_TOKEN_NOT_FOUND = withKind('not_found', createError(
  'PAYWIRE_ERR_GET_TOKEN_NOT_FOUND',
  'GetToken: no token has the given hash.',
  404
))

/** Dependency injection (gateway factories) */
export const PAYWIRE_ERR_SERVICE_NOT_FOUND = withKind('misconfigured', createError<[string, string, string]>(
  'PAYWIRE_ERR_SERVICE_NOT_FOUND',
  'Service %s is not registered%s.%s',
  500
))
export const PAYWIRE_ERR_CIRCULAR_DEPENDENCY = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_CIRCULAR_DEPENDENCY',
  'Circular dependency detected: %s. Reference dependencies with get(<id>) inside autowire() definitions and break the cycle (one of the services must not need the other in its constructor); do not build instances eagerly with the container inside a definition.',
  500
))
export const PAYWIRE_ERR_ACTION_API_NOT_INJECTED = withKind('misconfigured', createError<[string, string, string]>(
  'PAYWIRE_ERR_ACTION_API_NOT_INJECTED',
  'Action %s did not receive its API object (constructor parameter "%s"). Add constructorParameter(\'%s\', get(YourApi)) to its autowire() definition in configureContainer().',
  500
))
export const PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED = withKind('misconfigured', createError<[string, string, string]>(
  'PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED',
  'Cannot build %s: constructor parameter %s has no value. %s',
  500
))
export const PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED = withKind('misconfigured', createError<[string, string, string, string]>(
  'PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED',
  'constructorParameter(\'%s\') cannot be mapped to a constructor parameter of %s: the class does not declare its parameter names. Add static inject = [\'%s\', ...] to %s, listing every constructor parameter in order (compilers and minifiers rename parameters, so Paywire never reads them from the source), or pass the arguments by position with constructor(...).',
  500, TypeError
))
export const PAYWIRE_ERR_INVALID_DEFINITION = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_INVALID_DEFINITION',
  'Invalid container definition for %s: %s',
  500, TypeError
))
export const PAYWIRE_ERR_INVALID_ACTION_ENTRY = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_INVALID_ACTION_ENTRY',
  'getActions() of %s returned %s: entries must be action classes (not instances) so the container can inject their dependencies.',
  500, TypeError
))
export const PAYWIRE_ERR_INVALID_EXTENSION_ENTRY = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_INVALID_EXTENSION_ENTRY',
  'getExtensions() of %s returned %s: entries must be extension classes or extension instances (onPreExecute, onExecute, onPostExecute).',
  500, TypeError
))

/** 1.x gateway factories and ApiAware actions (deprecated, removed in the next major version; see MIGRATION.md) */
export const PAYWIRE_ERR_UNSUPPORTED_API = withKind('misconfigured', createError<[string, string, string]>(
  'PAYWIRE_ERR_UNSUPPORTED_API',
  'Action %s does not support %s: its apiClass is %s.',
  500, TypeError
))
export const PAYWIRE_ERR_API_NOT_FOUND = withKind('misconfigured', createError<[string, string, string, { cause: unknown }]>(
  'PAYWIRE_ERR_API_NOT_FOUND',
  'Cannot find right api for the action %s: it needs an instance of %s and the gateway has %s. Build that API under a paywire.api.* config key (1.x) or, better, give the action its API through its constructor with constructorParameter(\'api\', get(<Api class>)) (2.0, MIGRATION.md rule 5).',
  500
))
export const PAYWIRE_ERR_API_CLASS_MISSING = withKind('misconfigured', createError<[string]>(
  'PAYWIRE_ERR_API_CLASS_MISSING',
  'Action %s is ApiAware but has no apiClass: pass the API class to ApiAware(Base, Api) or set this.apiClass in its constructor.',
  500, TypeError
))
export const PAYWIRE_ERR_INVALID_CONFIG_ENTRY = withKind('misconfigured', createError<[string, string, string]>(
  'PAYWIRE_ERR_INVALID_CONFIG_ENTRY',
  'Config key "%s" must hold %s (or a closure returning one), not %s.',
  500, TypeError
))
export const PAYWIRE_ERR_DOCTOR_NO_SETUP = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_DOCTOR_NO_SETUP',
  'Module %s has no Paywire setup under the export names %s: export a PaywireBuilder, a Paywire, a Fastify app registering the paywire plugin, or a function returning one of them.',
  500, TypeError
))

/** Gateway options */
export const PAYWIRE_ERR_REQUIRED_OPTION = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_REQUIRED_OPTION',
  'Gateway "%s": option "%s" is required and must not be empty.',
  500, TypeError
))
export const PAYWIRE_ERR_INVALID_OPTION = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_INVALID_OPTION',
  'Invalid option "%s": %s',
  500, TypeError
))

/** HTTP routes and plugin options */
export const PAYWIRE_ERR_VALIDATION = withKind('invalid_request', createError<[string, string]>(
  'PAYWIRE_ERR_VALIDATION',
  'Invalid request: %s %s.',
  400
))
export const PAYWIRE_ERR_ROUTE_NOT_FOUND = withKind('not_found', createError<[string, string]>(
  'PAYWIRE_ERR_ROUTE_NOT_FOUND',
  'There is no payment route %s %s.',
  404
))
export const PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED = withKind('not_found', createError<[string]>(
  'PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED',
  'Gateway "%s" does not accept gateway-wide notifications.',
  404
))
export const PAYWIRE_ERR_INVALID_BODY = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_INVALID_BODY',
  'Invalid request body: %s.',
  400
))

/** Trust boundaries */
export const PAYWIRE_ERR_UNTRUSTED_HOST = withKind('invalid_request', createError<[string]>(
  'PAYWIRE_ERR_UNTRUSTED_HOST',
  'The request came for origin "%s", which is not in the paywire plugin\'s trustRequestBaseUrl list: no payment link is made for it.',
  400
))
