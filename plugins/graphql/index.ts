export * as graphqlErrorCodes from './codes.ts'
export { paywireGraphql, paywireGraphql as default } from './plugin.ts'
export {
  DEFAULT_MAX_PAGE_SIZE, INTROSPECTION_QUERY_DEPTH, MERCURIUS_DEFAULTS, mercuriusOptions, validateOptions, type PaywireGraphqlOptions
} from './options.ts'
export type { Authorize, PaywireGraphqlOperation } from './context.ts'
export { DEFAULT_IDEMPOTENCY, Idempotency, canonicalJson, fingerprint, type IdempotencySettings, type Replayable } from './idempotency.ts'
export {
  DEFAULT_MAX_IDEMPOTENCY_ENTRIES, MemoryIdempotencyStore,
  type IdempotencyRecord, type IdempotencyStore, type MemoryIdempotencyStoreOptions
} from '../core/engine/index.ts'
export {
  CancelPaymentArgs, CreatePaymentInput, IdempotencyKey, MAX_DETAILS_BYTES, OrderNumber, PaymentArgs, PaymentFilter, PaymentId,
  PaymentOutcomeArgs, PaymentsArgs, RefundPaymentArgs, checkAfterUrl, type AfterUrlOrigins
} from './inputs.ts'
export { BACK_OFFICE_OPERATIONS } from './mutations.ts'
export { DEFAULT_LIMITS, addLimits, defaultLimits, type GraphqlLimits } from './limits.ts'
export { PaymentLoader } from './loader.ts'
export { ERROR_TYPE_NAMES, RESULT_UNIONS, TYPE_NAMES, paywireSchema } from './schema.ts'
