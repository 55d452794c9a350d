import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceContainer, type ContainerGatewayFactory } from './engine/index.ts'

export interface GatewayPluginOptions {
  /** Registers the factory under another name (two variants of one factory, say). */
  factoryName?: string
}

export interface GatewayPluginSpec<F extends ContainerGatewayFactory> {
  /** Plugin name suffix: the plugin is named "paywire-gateway-<name>". */
  name: string
  /** The factory name gateways use in { factory }. */
  factoryName: string
  createFactory: () => F
  /** Anything else the gateway needs from the application (a storage for its own records...). */
  setup?: (app: FastifyInstance, factory: F) => void | Promise<void>
}

/**
 * Makes a gateway factory a Fastify plugin: encapsulated, depending on the core plugin,
 * with its own Awilix scope under the application's container holding the factory's
 * definitions. Each named gateway of the factory then gets a child scope of it with its
 * own options.
 */
export function gatewayPlugin<F extends ContainerGatewayFactory> (spec: GatewayPluginSpec<F>) {
  const plugin: FastifyPluginAsync<GatewayPluginOptions> = async function paywireGatewayPlugin (app, options) {
    const factory = spec.createFactory()
    const scope = ServiceContainer.of(app.diContainer).createScope().register(factory.configureContainer())
    app.paywire.addGatewayFactory(options.factoryName ?? spec.factoryName, factory, scope)
    await spec.setup?.(app, factory)
    app.addHook('onClose', async function gatewayScopeOnClose () {
      await scope.dispose()
    })
  }
  return fp(plugin, {
    name: `paywire-gateway-${spec.name}`,
    fastify: '5.x',
    dependencies: ['paywire'],
    decorators: { fastify: ['paywire', 'diContainer'] },
    encapsulate: true
  })
}
