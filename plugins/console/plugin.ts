import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { DEFAULT_IDEMPOTENCY, MemoryIdempotencyStore, OperationIdempotency } from '../core/engine/index.ts'
import { CsrfTokens } from './csrf.ts'
import { IDEMPOTENCY_ERRORS } from './operations.ts'
import { DEFAULT_CONSOLE_PAGE_SIZE, DEFAULT_CONSOLE_PREFIX, validateConsoleOptions, type PaywireConsoleOptions } from './options.ts'
import { consoleRoutes } from './routes.ts'
import type { ConsoleRuntime } from './runtime.ts'

const paywireConsolePlugin: FastifyPluginAsync<PaywireConsoleOptions> = async function paywireConsole (app, options) {
  validateConsoleOptions(options)
  const prefix = options.prefix ?? DEFAULT_CONSOLE_PREFIX
  // Confirmations' records live where payments live, so a form sent twice to two instances still runs once.
  const store = options.idempotencyStore ?? app.paywire.getStorageBackend().createIdempotencyStore?.('console') ?? new MemoryIdempotencyStore()
  const runtime: ConsoleRuntime = {
    paywire: app.paywire,
    authorize: options.authorize,
    csrf: new CsrfTokens(options.csrfSecret, prefix),
    idempotency: new OperationIdempotency(store, DEFAULT_IDEMPOTENCY, IDEMPOTENCY_ERRORS),
    home: prefix,
    pageSize: options.pageSize ?? DEFAULT_CONSOLE_PAGE_SIZE,
    locale: options.locale ?? 'en-US'
  }
  await app.register(consoleRoutes, { prefix, runtime })
}

/**
 * The operator console: payments listed and filtered, one payment's facts and timeline, and
 * Sync, refund, cancel and capture behind a confirmation, as server-rendered pages. Register
 * it after the paywire plugin, with an authorize(request, operation) option.
 */
export const paywireConsole = fp(paywireConsolePlugin, {
  name: 'paywire-console',
  fastify: '5.x',
  dependencies: ['paywire'],
  decorators: { fastify: ['paywire'] }
})
export default paywireConsole
