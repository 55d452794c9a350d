import { AsyncLocalStorage } from 'node:async_hooks'
import { fastifyAwilixPlugin } from '@fastify/awilix'
import { createContainer, InjectionMode } from 'awilix'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import {
  Logger, PaywireBuilder, TOKEN_PLACEHOLDER, type BaseUrl, type Paywire
} from './engine/index.ts'
import { DEFAULT_PREFIX, DEFAULT_TOKEN_LOCK_MS, validateOptions, type PaywirePluginOptions } from './options.ts'
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

/**
 * Where token URLs point. Without a configured base URL: the request's own origin when the
 * application allows it, else (development) the address the server listens on.
 */
function baseUrlSource (app: FastifyInstance, options: PaywirePluginOptions): BaseUrl {
  if (options.baseUrl !== undefined) return options.baseUrl
  if (options.trustRequestBaseUrl === true) {
    const origins = new AsyncLocalStorage<string>()
    app.addHook('onRequest', function paywireRequestOrigin (request, _reply, done) {
      origins.run(`${request.protocol}://${request.host}`, done)
    })
    return () => origins.getStore()
  }
  return () => {
    try {
      return app.listeningOrigin.replace(/\/\/(0\.0\.0\.0|\[::\])(?=:)/, '//localhost')
    } catch {
      return undefined
    }
  }
}

const paywirePlugin: FastifyPluginAsync<PaywirePluginOptions> = async function paywire (app, options) {
  validateOptions(options)
  // One container per application; an application that registered @fastify/awilix itself keeps its own.
  if (!app.hasDecorator('diContainer')) {
    await app.register(fastifyAwilixPlugin, {
      container: createContainer({ injectionMode: InjectionMode.PROXY, strict: true }),
      disposeOnResponse: false,
      asyncInit: false,
      eagerInject: false
    })
  }
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const builder = new PaywireBuilder()
    .setContainer(app.diContainer)
    .setBaseUrl(baseUrlSource(app, options))
    .setGenericTokenFactoryPaths(routeTokenPaths(prefix))
    .addGlobalService(Logger, app.log)
  if (options.backend !== undefined) builder.setStorageBackend(options.backend)
  if (options.tokenStorage !== undefined) builder.setTokenStorage(options.tokenStorage)
  for (const [Model, storage] of options.storages ?? []) builder.addStorage(Model, storage)
  builder.addDefaultStorages()
  for (const [name, gatewayOptions] of Object.entries(options.gateways ?? {})) builder.addGateway(name, gatewayOptions)
  await options.configure?.(builder, app)

  const paywire = builder.getPaywire()
  app.decorate('paywire', paywire)
  app.addHook('onClose', async function paywireOnClose () {
    await paywire.close()
  })

  if (options.routes !== false) {
    const basePath = options.baseUrl === undefined ? '/' : new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`).pathname
    await app.register(paywireRoutes, { prefix, paywire, basePath, tokenLockMs: options.tokenLockMs ?? DEFAULT_TOKEN_LOCK_MS })
  }
}

/** The core plugin: decorates app.paywire and serves the payment routes. */
export const paywire = fp(paywirePlugin, { name: 'paywire', fastify: '5.x' })
export default paywire
