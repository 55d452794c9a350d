/*
 * The framework-agnostic engine: usable from any Node program, without Fastify.
 */
export * as errorCodes from './errors.ts'
export { isErrorCode, providerError, type ProviderError, type ProviderErrorDetails } from './errors.ts'
export { ERROR_KINDS, isClientFailure, isProviderKind, kindOf, withKind, type ErrorKind, type KindedErrorConstructor } from './errors-kind.ts'

export { PaywireBuilder } from './setup/builder.ts'
export { Paywire } from './setup/paywire.ts'
export { Gateway, type ExecuteOptions, type RequestNotSupportedError } from './kernel/gateway.ts'
export { UnitOfWork, type UnitOfWorkParts } from './commit/unit-of-work.ts'
export {
  ExclusiveExecutor, DEFAULT_CLAIM_TTL_MS, DEFAULT_EXCLUSIVE_ATTEMPTS,
  type ExclusiveExecutorParts, type ExclusiveOptions, type ExclusiveResult, type ExclusiveTarget
} from './kernel/exclusive-executor.ts'
export { StatusTransitions, FORWARD_TRANSITIONS, type TransitionDecision, type TransitionTable } from './kernel/status-transitions.ts'
export {
  PaywireEvents, eventDeliveryOptions,
  type AnyPaywireEvent, type EventDeliveryOptions, type PaywireEventMap, type PaywireEventType, type UnmatchedMoneyEvent, type UnmatchedNotification
} from './events/paywire-events.ts'
export { EVENT_DELIVERY_OPTION_NAMES } from './events/delivery-options.ts'
export {
  classify, describeWrites, eventsOf, facetsOfWrite, outboxRecord, partitionOf,
  type OutboxRecord, type PaymentEvent, type PaymentEventType, type ReaderLookup
} from './events/payment-events.ts'
export { PaymentStateReader, type PaymentDispute, type PaymentState, type ProviderView } from './requests/payment-state.ts'
export { DEAD_EVENTS_KEPT, type DueBatches, type LeaseDueOptions, type Outbox, type OutboxBatch, type OutboxEntry, type OutboxLease, type SettledEntry, type Settlement } from './events/outbox.ts'
export { MemoryOutbox } from './events/memory-outbox.ts'
export { tickBatches } from './events/tick-batches.ts'

// What addGatewayFactory() accepts; the name GatewayFactory is the 1.x base class (legacy/).
export { GatewayRegistry, type GatewayFactory as AnyGatewayFactory, type GatewayOptions } from './setup/gateway-registry.ts'
export {
  CoreGatewayFactory, isContainerGatewayFactory,
  type ActionEntry, type ContainerGatewayFactory, type ExtensionEntry
} from './setup/core-gateway-factory.ts'

export {
  autowire, factory, get, serviceId,
  type AbstractClass, type AutowireDefinition, type Class, type ContainerConfiguration, type FactoryDefinition,
  type Reference, type ServiceId, type TemplatePaths
} from './di/definitions.ts'
export { ServiceContainer } from './di/service-container.ts'

export {
  GatewayAwareAction, isAction,
  type Action, type GatewayAware, type PrependAction
} from './kernel/actions/action.ts'
export { AuthorizePaymentAction, CapturePaymentAction, PayoutPayoutAction } from './kernel/actions/convert-and-execute-action.ts'
export { ExecuteSameRequestWithModelDetailsAction } from './kernel/actions/execute-same-request-with-model-details-action.ts'
export { GetCurrencyAction } from './kernel/actions/get-currency-action.ts'
export { GetHttpRequestAction } from './kernel/actions/get-http-request-action.ts'
export { GetTokenAction } from './kernel/actions/get-token-action.ts'
export { CheckpointAction } from './kernel/actions/checkpoint-action.ts'
export { RenderTemplateAction } from './kernel/actions/render-template-action.ts'
export { StatusFromReaderAction } from './kernel/actions/status-from-reader-action.ts'

export { Context } from './kernel/extensions/context.ts'
export type { Extension, PrependExtension } from './kernel/extensions/extension.ts'
export { EndlessCycleDetectorExtension } from './kernel/extensions/endless-cycle-detector-extension.ts'
export { LogExecutedActionsExtension } from './kernel/extensions/log-executed-actions-extension.ts'
export { StorageExtension } from './kernel/extensions/storage-extension.ts'

export { Reply, HttpResponse, HttpRedirect, HttpPostRedirect, type ReplyHeaders } from './requests/replies.ts'
export { escapeHtml } from './html.ts'

export { LocateNotification, type PaymentLookup, type ProviderNotification } from './requests/notification.ts'
export { NotificationReceiver, UNMATCHED_MEMORY_MS, type NotificationReceiverParts } from './kernel/notification-receiver.ts'
export { Generic, Capture, Authorize, Refund, Cancel, Notify, Sync, Payout, type CaptureOptions, type RefundOptions } from './requests/generic.ts'
export {
  BaseGetStatus, GetHumanStatus, GetBinaryStatus, HumanStatus, BinaryStatus, HUMAN_STATUSES,
  type HumanStatusValue, type PaymentAmounts
} from './requests/get-status.ts'
export { Convert } from './requests/convert.ts'
export { Checkpoint } from './requests/checkpoint.ts'
export { GetHttpRequest, type HttpRequestData } from './requests/get-http-request.ts'
export { GetToken } from './requests/get-token.ts'
export { GetCurrency } from './requests/get-currency.ts'
export { RenderTemplate } from './requests/render-template.ts'

export { ArrayObject, DetailsRecord, type Details } from './model/array-object.ts'
export { Identity } from './model/identity.ts'
export { Payment } from './model/payment.ts'
export { Payout as PayoutModel } from './model/payout.ts'
export { Token, type TokenJSON, type TokenKind } from './model/token.ts'

export type { Storage, Criteria, FindByOptions, FindOptions, ModelClass } from './storage/storage.ts'
export { ReadCache } from './storage/read-cache.ts'
export { reindexPayments, type ReindexReport } from './storage/reindex.ts'
export { isPaymentSearch, type AttentionRead, type PaymentFacets, type PaymentPage, type PaymentQuery, type PaymentSearch } from './storage/payment-search.ts'
export {
  MAX_PAGE_SIZE, checkDefer, checkDue, decodeSearchCursor, encodeSearchCursor, isDue, matchesQuery, newerThan, normalizeQuery, pageOf, paymentFacets, paymentSearchOf,
  type NormalizedQuery, type SearchCursor
} from './storage/payment-query.ts'
export {
  ATTENTION_DEFAULTS, ATTENTION_OPTION_NAMES, attentionOf, attentionOptions, type Attention, type AttentionOptions, type AttentionReason
} from './reconcile/attention.ts'
export {
  ReconcileSweeper, type ReconcileCandidate, type ReconcileParts, type Remembered, type SweepLease, type SweepReport, type SyncOutcome
} from './reconcile/sweeper.ts'
export { RECONCILE_OPTION_NAMES, reconcileOptions, type ReconcileOptions, type ResolvedReconcileOptions } from './reconcile/options.ts'
export type { AuthorizationExpiringEvent, MoneyMismatchEvent, ReconcileEvent, ReconcileEventMap, ReconciledPayment } from './reconcile/events.ts'
export { RECONCILE_LEASE_PARTITION, reconcileParts, type ReconcileSources } from './setup/reconcile-parts.ts'
export {
  AbstractStorage, ANY_VERSION, defaultCodec, matchesCriteria, valueAt,
  type ModelCodec, type StagedWrite, type StorageOptions, type StoredRecord
} from './storage/abstract-storage.ts'
export type { CommitSet, UnstagedSave } from './commit/commit-set.ts'
export { assertStorable, isStorableText, MAX_RECORD_DEPTH } from './storage/storable.ts'
export { MemoryStorage } from './storage/memory-storage.ts'
export { StorageRegistry } from './storage/storage-registry.ts'

export {
  TokenStorage, DEFAULT_TOKEN_TTL_SECONDS, CLAIM_HOLDER, assertTokenTtls, claimHolder, newClaimId, tokenTtlSeconds, tokenUsedError,
  type Claim, type TokenClaim, type TokenRead, type TokenTtls, type UsedToken
} from './security/token-storage.ts'
export { affinityTag, AFFINITY_TAG_LENGTH } from './random.ts'
export { MemoryTokenStorage, type MemoryTokenStorageOptions } from './security/memory-token-storage.ts'
export { TokenFactory, TOKEN_PARAMETER, TOKEN_PLACEHOLDER, type BaseUrl, type TokenSpec, type UrlParameters } from './security/token-factory.ts'
export { GenericTokenFactory, DEFAULT_TOKEN_PATHS, type TokenPaths } from './security/generic-token-factory.ts'
export { HttpRequestVerifier, type VerifiableRequest } from './security/http-request-verifier.ts'

export { HttpClient, UndiciHttpClient, type HttpRequest, type HttpResponse as HttpClientResponse } from './http-client.ts'
export { Logger, NullLogger } from './observability/logger.ts'
export {
  BACKLOG_COUNTED, DEFAULT_HEALTH_TIMEOUT_MS, DEFAULT_MAX_EVENT_LAG_MS, HEALTH_OPTION_NAMES, checkHealth, healthOptions,
  type EventsHealth, type HealthOptions, type HealthReport, type HealthStatus, type HealthSubjects, type StorageHealth
} from './setup/health.ts'
export {
  PAYWIRE_TRACER_NAME, SPAN_ACTION, SPAN_EVENT_DISPATCH, SPAN_GATEWAY_EXECUTE, SPAN_STORAGE_COMMIT,
  observeProviderCall, traceEventDispatch, type ProviderCall
} from './observability/telemetry.ts'
export {
  PAYWIRE_REDACT_PATHS, REDACTED, RedactingLogger, SECRET_KEY, TOKEN_PREFIX_LENGTH, paywireLogSerializers, paywireLogger, redactText,
  redactUrl, redactValue, redactedError, serializeError, serializeRequest, stripCommandArguments, tokenPrefix,
  describeConnectionAs, hideConnection
} from './observability/redact.ts'
export { runWithHttpRequest, getCurrentHttpRequest } from './requests/http-request-context.ts'
export { TemplateRenderer } from './kernel/template-renderer.ts'
export {
  findCurrency, getCurrency, formatMinorUnits, parseToMinorUnits, isMinorUnits, assertMinorUnits,
  type Currency
} from './money.ts'
export { MemoryStorageBackend, StorageBackend } from './commit/storage-backend.ts'
export type { IdempotencyRecord, IdempotencyStore } from './storage/idempotency-store.ts'
export {
  DEFAULT_MAX_IDEMPOTENCY_ENTRIES, MemoryIdempotencyStore, type MemoryIdempotencyStoreOptions
} from './storage/memory-idempotency-store.ts'
export {
  DEFAULT_IDEMPOTENCY, OperationIdempotency, canonicalJson, fingerprint,
  type IdempotencyErrors, type IdempotencySettings, type Replayable
} from './storage/operation-idempotency.ts'
export {
  PAYMENT_OPERATIONS, gatewaySupports, readPaymentState, readPaymentStatus, runPaymentOperation,
  type PaymentOperationContext, type PaymentOperationErrors, type PaymentOperationOutcome, type PaymentOperationSpec
} from './setup/payment-operation.ts'

export { DEPRECATIONS, findDeprecation, recordDeprecations, type Deprecation } from './deprecations.ts'
export * from './legacy/index.ts'
