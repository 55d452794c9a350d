// Types only: the decorator's type (app.diContainer) comes with @fastify/awilix; its plugin is not registered.
import type { Cradle } from '@fastify/awilix'
import { createContainer, InjectionMode, type AwilixContainer } from 'awilix'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import {
  Logger, MemoryStorage, Payment, PaywireBuilder, TOKEN_PLACEHOLDER, errorCodes, paywireLogSerializers, paywireLogger, type BaseUrl, type Paywire
} from './engine/index.ts'
import { chainFrame, runInFrame } from './engine/async-chain.ts'
import { paywireHealthRoute } from './health-route.ts'
import { DEFAULT_PREFIX, healthRouteOptions, reconcileSetting, validateOptions, type PaywirePluginOptions } from './options.ts'
import { BuyerPages } from './pages.ts'
import { paywireRoutes } from './routes.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The central Paywire object: gateways, storages, token factory. */
    paywire: Paywire
  }
}

/** The token paths of the plugin's routes, relative to the base URL. */
export function routeTokenPaths (prefix: string): Record<string, string> {
  const base = prefix.replace(/^\//, '')
  const paths: Record<string, string> = {}
  for (const kind of ['capture', 'authorize', 'refund', 'cancel', 'payout', 'sync', 'notify', 'done']) {
    paths[kind] = `${base}/${kind}/${TOKEN_PLACEHOLDER}`
  }
  return paths
}

/** The origin the server listens on (development without a base URL), undefined before listen(). */
function listeningOrigin (app: FastifyInstance): string | undefined {
  try {
    return app.listeningOrigin.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost')
  } catch {
    return undefined
  }
}

/**
 * Where token URLs point. Without a configured base URL: the request's own origin when it is
 * one the application listed, else (development) the address the server listens on.
 */
function baseUrlSource (app: FastifyInstance, options: PaywirePluginOptions): BaseUrl {
  if (options.baseUrl !== undefined) return options.baseUrl
  if (options.trustRequestBaseUrl !== undefined) {
    const trusted = new Set(options.trustRequestBaseUrl.map((origin) => new URL(origin).origin))
    // In the engine's per-chain frame, not a store of its own (async-chain.ts says why).
    app.addHook('onRequest', function paywireRequestOrigin (request, _reply, done) {
      const origin = `${request.protocol}://${request.host}`
      runInFrame(chainFrame().withOrigin({ source: trusted, origin, trusted: trusted.has(origin) }), done)
    })
    return () => {
      const set = chainFrame().origin
      const current = set?.source === trusted ? set : undefined
      // A spoofed Host must not choose where payment links (and the buyer, after paying) go.
      if (current !== undefined && !current.trusted) throw new errorCodes.PAYWIRE_ERR_UNTRUSTED_HOST(current.origin.slice(0, 300))
      return current?.origin
    }
  }
  // The address does not change once listening; asking the socket for it per token was 1% of the CPU.
  let listening: string | undefined
  return () => (listening ??= listeningOrigin(app))
}

/** The origins the shop is reached at, from configuration only. */
function shopOrigins (app: FastifyInstance, options: PaywirePluginOptions): () => readonly string[] {
  if (options.baseUrl !== undefined) {
    const origins = [new URL(options.baseUrl).origin]
    return () => origins
  }
  if (options.trustRequestBaseUrl !== undefined) {
    const origins = options.trustRequestBaseUrl.map((origin) => new URL(origin).origin)
    return () => origins
  }
  return () => {
    const origin = listeningOrigin(app)
    return origin === undefined ? [] : [origin]
  }
}

const paywirePlugin: FastifyPluginAsync<PaywirePluginOptions> = async function paywire (app, options) {
  validateOptions(options)
  // One container per application; an application that registered @fastify/awilix itself keeps its own.
  // Only the container is decorated, not @fastify/awilix registered: its onRequest hook would
  // create a DI scope for every request of the shop, which nothing of Paywire uses (3.7% of
  // the server's CPU under load).
  let ownContainer: AwilixContainer<Cradle> | undefined
  if (!app.hasDecorator('diContainer')) {
    ownContainer = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true })
    app.decorate('diContainer', ownContainer)
  }
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const builder = new PaywireBuilder()
    .setContainer(app.diContainer)
    .setBaseUrl(baseUrlSource(app, options))
    .setShopOrigins(shopOrigins(app, options))
    .setGenericTokenFactoryPaths(routeTokenPaths(prefix))
    // Paywire's logger redacts; the application's own logger is left as it is. Inside the
    // payment routes, lines go to request.log (they carry the request id).
    .addGlobalService(Logger, paywireLogger(app.log, { followRequests: true }))
  if (options.backend !== undefined) builder.setStorageBackend(options.backend)
  if (options.claimTtlMs !== undefined) builder.setClaimTtlMs(options.claimTtlMs)
  if (options.events !== undefined) builder.setEventDelivery(options.events)
  if (options.attention !== undefined) builder.setAttention(options.attention)
  if (options.tokenStorage !== undefined) builder.setTokenStorage(options.tokenStorage)
  for (const [Model, storage] of options.storages ?? []) builder.addStorage(Model, storage)
  builder.addDefaultStorages()
  for (const [name, gatewayOptions] of Object.entries(options.gateways ?? {})) builder.addGateway(name, gatewayOptions)
  await options.configure?.(builder, app)

  const paywire = builder.getPaywire()
  // A production shop that forgot its backend would lose every payment at its next restart, silently.
  if (process.env.NODE_ENV === 'production' && options.allowMemoryStorage !== true && paywire.getStorage(Payment) instanceof MemoryStorage) {
    throw new errorCodes.PAYWIRE_ERR_MEMORY_STORAGE_IN_PRODUCTION()
  }
  app.decorate('paywire', paywire)
  const reconcile = reconcileSetting(options)
  if (reconcile !== undefined) paywire.reconcile.configure(reconcile)
  app.addHook('onClose', async function paywireOnClose () {
    // Stops the sweeper and the event poller and waits (bounded) for handlers in flight, then closes the rest.
    await paywire.close()
    await ownContainer?.dispose()
  })
  // Gateway plugins register their factories after this plugin; once every plugin is loaded,
  // each gateway is built, so a misspelt factory, a forgotten gateway plugin or empty
  // credentials fail app.ready() with their coded error, not the first buyer's payment.
  app.addHook('onReady', async function paywireBuildGateways () {
    for (const name of paywire.getGatewayNames()) paywire.getGateway(name)
    // Only now: handlers registered while the application loaded hear every event, old ones included.
    paywire.events.start()
    // Throws PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED (ready fails) when the Payment storage cannot find due payments.
    if (reconcile !== undefined) paywire.reconcile.start()
  })

  if (options.routes !== false) {
    const basePath = options.baseUrl === undefined ? '/' : new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`).pathname
    await app.register(paywireRoutes, {
      prefix,
      paywire,
      basePath,
      pages: new BuyerPages(options.pages),
      securityHeaders: options.pages?.securityHeaders ?? true,
      // The routes' request logs and error logs: token hashes and secrets redacted, in their context only.
      // (Fastify types serializers as returning strings; pino's return objects.)
      logSerializers: { ...paywireLogSerializers } as unknown as Record<string, (value: unknown) => string>
    })
  }
  // Apart from the payment routes (and their buyer pages): a probe reads JSON, with or without them.
  const health = healthRouteOptions(options)
  if (health !== undefined) await app.register(paywireHealthRoute, { paywire, ...health })
}

/** The core plugin: decorates app.paywire and serves the payment routes. */
export const paywire = fp(paywirePlugin, { name: 'paywire', fastify: '5.x' })
export default paywire
