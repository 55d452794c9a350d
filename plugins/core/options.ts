import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyInstance } from 'fastify'
import {
  errorCodes, type GatewayOptions, type ModelClass, type PaywireBuilder, type Storage, type StorageBackend, type TokenStorage
} from './engine/index.ts'
import { GatewayName } from './schemas.ts'

export const DEFAULT_PREFIX = '/payment'
/** Long enough for a gateway call with its retries; a crashed request's claim expires by itself. */
export const DEFAULT_TOKEN_LOCK_MS = 120_000

export const GatewayOptionsSchema = Type.Object({
  factory: Type.String({ minLength: 1 })
}, { additionalProperties: true })

/** The JSON part of the plugin options (the rest are objects and functions, checked by shape). */
export const PaywirePluginOptionsSchema = Type.Object({
  baseUrl: Type.Optional(Type.String({ pattern: '^https?://' })),
  trustRequestBaseUrl: Type.Optional(Type.Boolean()),
  prefix: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)+$' })),
  gateways: Type.Optional(Type.Record(GatewayName, GatewayOptionsSchema, { additionalProperties: false })),
  tokenLockMs: Type.Optional(Type.Integer({ minimum: 1 })),
  routes: Type.Optional(Type.Boolean())
}, { additionalProperties: true })
export type PaywirePluginJsonOptions = Static<typeof PaywirePluginOptionsSchema>

export interface PaywirePluginOptions {
  /**
   * Absolute origin (and optional base path) of token URLs, e.g. https://shop.example.
   * Required in production unless trustRequestBaseUrl is set; in development the address
   * the server listens on is used.
   */
  baseUrl?: string
  /** Build token URLs from each request's protocol and Host (set Fastify's trustProxy behind a proxy). */
  trustRequestBaseUrl?: boolean
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
  /** How long a request may hold a token while the gateway runs (ms). */
  tokenLockMs?: number
  /** Set false to register your own routes. Default true. */
  routes?: boolean
}

function fail (option: string, problem: string): never {
  throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
}

function hasMethods (value: unknown, methods: string[]): boolean {
  return typeof value === 'object' && value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
}

const OPTION_NAMES = [
  'baseUrl', 'trustRequestBaseUrl', 'prefix', 'gateways', 'configure', 'backend', 'tokenStorage', 'storages', 'tokenLockMs', 'routes'
]
/** What Fastify's register() itself reads from a plugin's options. */
const REGISTER_OPTION_NAMES = ['logLevel', 'logSerializers']

/** Throws a coded error naming the first invalid option. */
export function validateOptions (options: PaywirePluginOptions): void {
  // A misspelt option (baseURL) would otherwise be dropped without a word.
  for (const name of Object.keys(options)) {
    if (OPTION_NAMES.includes(name) || REGISTER_OPTION_NAMES.includes(name)) continue
    const near = OPTION_NAMES.find((known) => known.toLowerCase() === name.toLowerCase())
    fail(name, `is not an option of the paywire plugin${near === undefined ? '' : ` (did you mean ${near}?)`}; its options: ${OPTION_NAMES.join(', ')}`)
  }
  const error = Value.Errors(PaywirePluginOptionsSchema, options).First()
  if (error !== undefined) {
    const option = error.path.slice(1).replace(/\//g, '.') || 'options'
    fail(option, error.message.toLowerCase())
  }
  if (options.baseUrl !== undefined && !URL.canParse(options.baseUrl)) fail('baseUrl', 'must be an absolute http(s) URL')
  if (options.configure !== undefined && typeof options.configure !== 'function') fail('configure', 'must be a function (builder, app)')
  if (options.backend !== undefined && !hasMethods(options.backend, ['createTokenStorage', 'createStorage'])) {
    fail('backend', 'must have createTokenStorage() and createStorage(Model)')
  }
  if (options.tokenStorage !== undefined && !hasMethods(options.tokenStorage, ['save', 'find', 'claim', 'invalidate', 'lock', 'unlock'])) {
    fail('tokenStorage', 'must implement TokenStorage (save, find, claim, invalidate, lock, unlock): extend the TokenStorage class')
  }
  if (options.storages !== undefined) {
    if (!Array.isArray(options.storages)) fail('storages', 'must be a list of [ModelClass, storage] pairs')
    options.storages.forEach((pair, index) => {
      if (!Array.isArray(pair) || typeof pair[0] !== 'function' || !hasMethods(pair[1], ['create', 'update', 'find', 'identify'])) {
        fail(`storages.${index}`, 'must be a [ModelClass, storage] pair')
      }
    })
  }
  if (options.baseUrl === undefined && options.trustRequestBaseUrl !== true && process.env.NODE_ENV === 'production') {
    fail('baseUrl', 'is required in production (or set trustRequestBaseUrl: true behind a trusted proxy)')
  }
}
