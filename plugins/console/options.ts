import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { FastifyRequest } from 'fastify'
import { errorCodes, type IdempotencyStore } from '../core/engine/index.ts'
import { asSentenceTail, refuseUnknownOptions } from '../core/engine/suggest.ts'
import { PAYWIRE_ERR_CONSOLE_AUTHORIZE_REQUIRED } from './codes.ts'

export const DEFAULT_CONSOLE_PREFIX = '/paywire/console'
export const DEFAULT_CONSOLE_PAGE_SIZE = 25

/** What the operator is about to do; the authorize option is asked about each request. */
export type ConsoleOperation = 'view' | 'refund' | 'cancel' | 'capture' | 'sync'

export type ConsoleAuthorize = (request: FastifyRequest, operation: ConsoleOperation) => boolean | Promise<boolean>

export interface PaywireConsoleOptions {
  /**
   * Who may use the console, asked on every request with what it would do ('view' for pages,
   * 'refund', 'cancel', 'capture', 'sync' for their confirmation and run). Only `true` lets the
   * request through; anything else answers 403. Required: without it the plugin refuses to register.
   */
  authorize: ConsoleAuthorize
  /** Where the console lives. Default "/paywire/console". */
  prefix?: string
  /** Payments per list page (1–200). Default 25. */
  pageSize?: number
  /**
   * Signs the forms' CSRF tokens (at least 32 characters). Default: a random secret per process,
   * which is enough for one instance; several instances behind one address need the same secret.
   */
  csrfSecret?: string
  /** Locale of amounts and times ("de-DE"). Default "en-US". */
  locale?: string
  /** Where confirmations' idempotency records live. Default: the payment backend's store ("console"), else memory. */
  idempotencyStore?: IdempotencyStore
}

const OptionsSchema = Type.Object({
  prefix: Type.Optional(Type.String({ pattern: '^(/[A-Za-z0-9._~-]+)+$' })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  csrfSecret: Type.Optional(Type.String({ minLength: 32 })),
  locale: Type.Optional(Type.String({ minLength: 2 }))
}, { additionalProperties: true })

const OPTION_NAMES = ['authorize', 'prefix', 'pageSize', 'csrfSecret', 'locale', 'idempotencyStore']

function knownLocale (tag: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0
  } catch {
    return false
  }
}

/** Throws a coded error naming the first invalid option (the missing authorize first). */
export function validateConsoleOptions (options: Partial<PaywireConsoleOptions>): asserts options is PaywireConsoleOptions {
  refuseUnknownOptions('paywire-console', options, OPTION_NAMES)
  if (options.authorize === undefined) throw new PAYWIRE_ERR_CONSOLE_AUTHORIZE_REQUIRED()
  if (typeof options.authorize !== 'function') {
    throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('authorize', 'must be a function (request, operation) => boolean | Promise<boolean>')
  }
  const error = Value.Errors(OptionsSchema, options).First()
  if (error !== undefined) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(error.path.slice(1).replace(/\//g, '.'), asSentenceTail(error.message))
  if (options.locale !== undefined && !knownLocale(options.locale)) {
    throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('locale', 'must be a locale Intl knows, like "en-US" or "de-DE"')
  }
  const store = options.idempotencyStore as unknown as Record<string, unknown> | undefined
  if (store !== undefined && ['claim', 'complete', 'release'].some((method) => typeof store?.[method] !== 'function')) {
    throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('idempotencyStore', 'must implement IdempotencyStore (claim, complete, release)')
  }
}
