import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyInstance } from 'fastify'
import {
  ATTENTION_OPTION_NAMES, EVENT_DELIVERY_OPTION_NAMES, RECONCILE_OPTION_NAMES, reconcileOptions, type ReconcileOptions, type AttentionOptions, HEALTH_OPTION_NAMES, errorCodes, healthOptions, type EventDeliveryOptions, type HealthOptions, type GatewayOptions, type ModelClass, type PaywireBuilder, type Storage, type StorageBackend, type TokenStorage
} from './engine/index.ts'
import { checkPagesOptions, type PagesOptions } from './pages.ts'
import { asSentenceTail, refuseUnknownOptions } from './engine/suggest.ts'
import { GatewayName } from './schemas.ts'

export const DEFAULT_PREFIX = '/payment'

export const GatewayOptionsSchema = Type.Object({
  factory: Type.String({ minLength: 1 })
}, { additionalProperties: true })

/** The JSON part of the plugin options (the rest are objects and functions, checked by shape). */
export const PaywirePluginOptionsSchema = Type.Object({
  baseUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  trustRequestBaseUrl: Type.Optional(Type.Array(Type.String({ pattern: '^https?://' }), { minItems: 1 })),
  prefix: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)+$' })),
  gateways: Type.Optional(Type.Record(GatewayName, GatewayOptionsSchema, { additionalProperties: false })),
  claimTtlMs: Type.Optional(Type.Integer({ minimum: 30 })),
  routes: Type.Optional(Type.Boolean()),
  allowMemoryStorage: Type.Optional(Type.Boolean()),
  events: Type.Optional(Type.Object({
    maxAttempts: Type.Optional(Type.Integer({ minimum: 1 })),
    retryBaseMs: Type.Optional(Type.Integer({ minimum: 0 })),
    retryMaxMs: Type.Optional(Type.Integer({ minimum: 0 })),
    pollIntervalMs: Type.Optional(Type.Integer({ minimum: 1 })),
    leaseMs: Type.Optional(Type.Integer({ minimum: 1 })),
    closeTimeoutMs: Type.Optional(Type.Integer({ minimum: 0 })),
    handlerTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    recoverIntervalMs: Type.Optional(Type.Integer({ minimum: 1 }))
  }, { additionalProperties: false })),
  attention: Type.Optional(Type.Object({
    pendingAfterMs: Type.Optional(Type.Integer({ minimum: 1 })),
    expiryWarningMs: Type.Optional(Type.Integer({ minimum: 1 }))
  }, { additionalProperties: false }))
}, { additionalProperties: true })
export type PaywirePluginJsonOptions = Static<typeof PaywirePluginOptionsSchema>

export interface PaywirePluginOptions {
  /**
   * Absolute origin (and optional base path) of token URLs, e.g. https://shop.example.
   * Required in production unless trustRequestBaseUrl is set; in development the address
   * the server listens on is used.
   */
  baseUrl?: string
  /**
   * Without baseUrl: build token URLs from each request's protocol and Host, when that origin
   * is one of these (['https://shop.example', 'https://www.shop.example']). A request for any
   * other origin gets no payment link (PAYWIRE_ERR_UNTRUSTED_HOST). Set Fastify's trustProxy
   * behind a proxy.
   */
  trustRequestBaseUrl?: string[]
  /** Where the payment routes live. Default "/payment". */
  prefix?: string
  /** Gateways by name: { factory, ...options }. */
  gateways?: Record<string, GatewayOptions>
  /** Full access to the builder, after `gateways` were added. */
  configure?: (builder: PaywireBuilder, app: FastifyInstance) => void | Promise<void>
  /** Where tokens and payments live; in memory by default (see plugins/redis for Redis). */
  backend?: StorageBackend
  /** Overrides the backend's token storage. */
  tokenStorage?: TokenStorage
  /** Overrides or adds storages by model class. */
  storages?: Array<[ModelClass, Storage]>
  /**
   * How long a request's claim on a payment lasts unless renewed (its lease, ms, default 6000).
   * It is renewed every third of it while the request runs, so it only bounds how long a
   * request whose process died keeps the payment's other requests waiting.
   */
  claimTtlMs?: number
  /** Set false to register your own routes. Default true. */
  routes?: boolean
  /** The buyer's pages: link back to the shop, locale, templates, done fields, security headers. */
  pages?: PagesOptions
  /**
   * Allow payments in process memory when NODE_ENV is production (lost on every restart).
   * Default false: boot fails with PAYWIRE_ERR_MEMORY_STORAGE_IN_PRODUCTION instead.
   */
  allowMemoryStorage?: boolean
  /** How payment events are retried, polled and leased (docs/events.md). */
  events?: EventDeliveryOptions
  /** When a payment needs a look by the reconciliation sweeper and in operator searches (needsAttention). */
  attention?: AttentionOptions
  /**
   * The reconciliation sweeper: true, or { intervalMs, batchSize, perSecond, backoffMs,
   * backoffMaxMs, leaseMs, expiryWarningMs }. Started once the application is ready, stopped
   * when it closes. Off by default (docs/operations.md, "Reconciliation sweeper").
   */
  reconcile?: boolean | ReconcileOptions
  /**
   * A readiness route answering app.paywire.health() with 200 (ok, degraded) or 503 (down):
   * true for `<prefix>/health`, or { path, timeoutMs, maxEventLagMs }. Off by default (docs/operations.md).
   */
  health?: boolean | PaywireHealthRouteOptions
}

export interface PaywireHealthRouteOptions extends HealthOptions {
  /** Where the route lives (absolute, e.g. "/healthz"). Default `<prefix>/health`. */
  path?: string
}

const PATH_PATTERN = /^(\/[A-Za-z0-9._~-]+)+$/

/** The health route's path and check options, or undefined when it is off. */
export function healthRouteOptions (options: PaywirePluginOptions): { path: string, check: HealthOptions } | undefined {
  const health = options.health
  if (health === undefined || health === false) return undefined
  const { path, ...check } = health === true ? {} : health
  return { path: path ?? `${options.prefix ?? DEFAULT_PREFIX}/health`, check }
}

function checkHealthOption (health: unknown): void {
  if (health === undefined || typeof health === 'boolean') return
  if (typeof health !== 'object' || health === null || Array.isArray(health)) fail('health', 'must be true, or { path, timeoutMs, maxEventLagMs }')
  const { path, ...check } = health as PaywireHealthRouteOptions
  refuseUnknownOptions('paywire', health, ['path', ...HEALTH_OPTION_NAMES], 'health.')
  if (path !== undefined && (typeof path !== 'string' || !PATH_PATTERN.test(path))) fail('health.path', 'must be an absolute path like /healthz')
  healthOptions(check)
}

/** The sweeper's options when the `reconcile` option turns it on (its expiry warning follows `attention`'s), else undefined. */
export function reconcileSetting (options: PaywirePluginOptions): ReconcileOptions | undefined {
  const reconcile = options.reconcile
  if (reconcile === undefined || reconcile === false) return undefined
  const warning = options.attention?.expiryWarningMs
  return { ...(warning === undefined ? {} : { expiryWarningMs: warning }), ...(reconcile === true ? {} : reconcile) }
}

function checkReconcileOption (reconcile: unknown): void {
  if (reconcile === undefined || typeof reconcile === 'boolean') return
  if (typeof reconcile !== 'object' || reconcile === null || Array.isArray(reconcile)) {
    fail('reconcile', `must be true, or { ${RECONCILE_OPTION_NAMES.join(', ')} }`)
  }
  reconcileOptions(reconcile as ReconcileOptions)
}

function fail (option: string, problem: string): never {
  throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
}

function hasMethods (value: unknown, methods: string[]): boolean {
  return typeof value === 'object' && value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
}

const OPTION_NAMES = [
  'baseUrl', 'trustRequestBaseUrl', 'prefix', 'gateways', 'configure', 'backend', 'tokenStorage', 'storages', 'claimTtlMs', 'routes', 'pages',
  'allowMemoryStorage', 'events', 'health', 'attention', 'reconcile'
]

/** Throws a coded error naming the first invalid option. */
export function validateOptions (options: PaywirePluginOptions): void {
  // A misspelt option (baseURL) would otherwise be dropped without a word.
  refuseUnknownOptions('paywire', options, OPTION_NAMES)
  // Before the schema, whose "unexpected property" would not say which name was meant.
  if (typeof options.events === 'object' && options.events !== null) refuseUnknownOptions('paywire', options.events, EVENT_DELIVERY_OPTION_NAMES, 'events.')
  if (typeof options.attention === 'object' && options.attention !== null) refuseUnknownOptions('paywire', options.attention, ATTENTION_OPTION_NAMES, 'attention.')
  if ((options.trustRequestBaseUrl as unknown) === true) {
    fail('trustRequestBaseUrl', 'must list the origins the shop is reached at, like [\'https://shop.example\']: trusting any Host header lets a spoofed one choose where payment links and after URLs point')
  }
  const error = Value.Errors(PaywirePluginOptionsSchema, options).First()
  if (error !== undefined) {
    const option = error.path.slice(1).replace(/\//g, '.') || 'options'
    fail(option, asSentenceTail(error.message))
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) fail('baseUrl', 'must be an absolute http(s) URL')
  options.trustRequestBaseUrl?.forEach((origin, index) => {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin.replace(/\/$/, '')) fail(`trustRequestBaseUrl.${index}`, 'must be an origin like https://shop.example (no path)')
  })
  checkPagesOptions(options.pages, fail)
  checkHealthOption(options.health)
  checkReconcileOption(options.reconcile)
  if (options.configure !== undefined && typeof options.configure !== 'function') fail('configure', 'must be a function (builder, app)')
  if (options.backend !== undefined && !hasMethods(options.backend, ['createTokenStorage', 'createStorage', 'commit'])) {
    fail('backend', 'must have createTokenStorage(), createStorage(Model) and commit(set, tokens): extend the StorageBackend class')
  }
  const tokenMethods = ['save', 'find', 'findUsed', 'invalidate', 'claim', 'acquireClaim', 'renewClaim', 'releaseClaim']
  if (options.tokenStorage !== undefined && !hasMethods(options.tokenStorage, tokenMethods)) {
    fail('tokenStorage', `must implement TokenStorage (${tokenMethods.join(', ')}): extend the TokenStorage class`)
  }
  if (options.storages !== undefined) {
    if (!Array.isArray(options.storages)) fail('storages', 'must be a list of [ModelClass, storage] pairs')
    options.storages.forEach((pair, index) => {
      if (!Array.isArray(pair) || typeof pair[0] !== 'function' || !hasMethods(pair[1], ['create', 'update', 'find', 'identify'])) {
        fail(`storages.${index}`, 'must be a [ModelClass, storage] pair')
      }
    })
  }
  if (options.baseUrl === undefined && options.trustRequestBaseUrl === undefined && process.env.NODE_ENV === 'production') {
    fail('baseUrl', 'is required in production (or list the origins behind a trusted proxy in trustRequestBaseUrl)')
  }
}
