import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { MercuriusOptions } from 'mercurius'
import { errorCodes, type IdempotencyStore } from '../core/engine/index.ts'
import { asSentenceTail, refuseUnknownOptions } from '../core/engine/suggest.ts'
import type { Authorize } from './context.ts'
import type { IdempotencySettings } from './idempotency.ts'
import type { AfterUrlOrigins } from './inputs.ts'
import type { GraphqlLimits } from './limits.ts'

export const DEFAULT_MAX_PAGE_SIZE = 100

/**
 * What the plugin sets when it registers mercurius itself; the application's mercurius
 * options win. Paywire's deepest useful query (payments → edges → node → status) is 5 deep.
 */
export const MERCURIUS_DEFAULTS: Readonly<MercuriusOptions> = {
  path: '/graphql',
  queryDepth: 8,
  csrfPrevention: true,
  graphiql: false,
  allowBatchedQueries: false
}

/**
 * The depth of graphql-js's introspection query (what GraphiQL sends for its schema
 * explorer): the default limit refuses it, so the plugin uses this one when GraphiQL is on.
 */
export const INTROSPECTION_QUERY_DEPTH = 15

/** The mercurius options the plugin registers mercurius with. */
export function mercuriusOptions (option: true | MercuriusOptions): MercuriusOptions {
  const given = option === true ? {} : option
  const graphiql = (given.graphiql ?? given.ide ?? false) !== false
  return { ...MERCURIUS_DEFAULTS, ...(graphiql ? { queryDepth: INTROSPECTION_QUERY_DEPTH } : {}), ...given }
}

export interface PaywireGraphqlOptions {
  /**
   * Registers mercurius for the application (true: with MERCURIUS_DEFAULTS; an object:
   * merged over them). Leave it out when the application registered mercurius itself.
   */
  mercurius?: boolean | MercuriusOptions
  /**
   * Decides back-office operations (payment, payments, refundPayment, cancelPayment).
   * Without it they are always denied with NotAuthorized.
   */
  authorize?: Authorize
  /**
   * Origins (https://shop.example) afterUrl may point at, or '*' for any. Default: the
   * origin of the shop's token URLs only.
   */
  afterUrlOrigins?: AfterUrlOrigins
  /** Idempotency-Key handling: the store (default: Redis when the paywire backend is Redis, else memory) and timings. */
  idempotency?: Partial<IdempotencySettings> & { store?: IdempotencyStore }
  /** The largest `first` of payments(). Default 100. */
  maxPageSize?: number
  /**
   * Bounds on each request to the GraphQL endpoint (aliases, root fields, cost, directives,
   * batch size, introspection, suggestions); DEFAULT_LIMITS and defaultLimits() by default.
   * `false` leaves bounding to the application.
   */
  limits?: Partial<GraphqlLimits> | false
}

const OptionsSchema = Type.Object({
  idempotency: Type.Optional(Type.Object({
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 1 })),
    lockMs: Type.Optional(Type.Integer({ minimum: 1 })),
    waitMs: Type.Optional(Type.Integer({ minimum: 0 }))
  }, { additionalProperties: true })),
  maxPageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  limits: Type.Optional(Type.Union([Type.Literal(false), Type.Object({
    maxAliases: Type.Optional(Type.Integer({ minimum: 0 })),
    maxRootFields: Type.Optional(Type.Integer({ minimum: 1 })),
    maxMutationFields: Type.Optional(Type.Integer({ minimum: 1 })),
    maxCost: Type.Optional(Type.Integer({ minimum: 1 })),
    maxDirectives: Type.Optional(Type.Integer({ minimum: 0 })),
    maxBatch: Type.Optional(Type.Integer({ minimum: 1 })),
    introspection: Type.Optional(Type.Boolean()),
    suggestions: Type.Optional(Type.Boolean())
  }, { additionalProperties: false })]))
}, { additionalProperties: true })

function fail (option: string, problem: string): never {
  throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
}

const OPTION_NAMES = ['mercurius', 'authorize', 'afterUrlOrigins', 'idempotency', 'maxPageSize', 'limits']
const IDEMPOTENCY_OPTION_NAMES = ['store', 'ttlSeconds', 'lockMs', 'waitMs']

/** Throws a coded error naming the first invalid option; answers the origins in their normalized form. */
export function validateOptions (options: PaywireGraphqlOptions): AfterUrlOrigins | undefined {
  // A misspelt option (authorise) would otherwise be dropped: back-office operations stay denied without a word.
  refuseUnknownOptions('paywire-graphql', options, OPTION_NAMES)
  const idempotency = options.idempotency
  if (typeof idempotency === 'object' && idempotency !== null) refuseUnknownOptions('paywire-graphql', idempotency, IDEMPOTENCY_OPTION_NAMES, 'idempotency.')
  const error = Value.Errors(OptionsSchema, options).First()
  if (error !== undefined) fail(error.path.slice(1).replace(/\//g, '.'), asSentenceTail(error.message))
  const { mercurius } = options
  if (mercurius !== undefined && typeof mercurius !== 'boolean' && (typeof mercurius !== 'object' || mercurius === null)) {
    fail('mercurius', 'must be true (register mercurius with safe defaults) or mercurius options')
  }
  if (options.authorize !== undefined && typeof options.authorize !== 'function') {
    fail('authorize', 'must be a function (context, operation) => boolean | Promise<boolean>')
  }
  const store = options.idempotency?.store
  if (store !== undefined && ['claim', 'complete', 'release'].some((method) => typeof (store as unknown as Record<string, unknown>)[method] !== 'function')) {
    fail('idempotency.store', 'must implement IdempotencyStore (claim, complete, release)')
  }
  const origins = options.afterUrlOrigins
  if (origins === undefined || origins === '*') return origins
  if (!Array.isArray(origins)) fail('afterUrlOrigins', 'must be \'*\' or a list of origins like https://shop.example')
  return origins.map((origin, index) => {
    const url = typeof origin === 'string' && /^https?:\/\//.test(origin) && URL.canParse(origin) ? new URL(origin) : undefined
    if (url === undefined || url.origin !== origin.replace(/\/$/, '')) fail(`afterUrlOrigins.${index}`, 'must be an origin like https://shop.example')
    return url.origin
  })
}
