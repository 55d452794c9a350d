import { HttpClient, PaywireBuilder, type AnyGatewayFactory } from 'paywire/engine'

export interface ShopSetup {
  /** Options of the "shop" gateway, over placeholder credentials. */
  options?: Record<string, unknown>
  /** addGatewayFactoryConfig() for the "acme" factory. */
  factoryConfig?: Record<string, unknown>
  httpClient?: HttpClient
}

/**
 * The application side of the example: the same code builds the 1.x and the migrated 2.0
 * factory, because builder users need no change.
 */
// #region builder
export function shopBuilder (factory: AnyGatewayFactory, setup: ShopSetup = {}): PaywireBuilder {
  const builder = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addGatewayFactory('acme', factory)
    .addGateway('shop', { factory: 'acme', client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>', ...setup.options })
  if (setup.factoryConfig !== undefined) builder.addGatewayFactoryConfig('acme', setup.factoryConfig)
  if (setup.httpClient !== undefined) builder.addGlobalService(HttpClient, setup.httpClient)
  return builder
}
// #endregion builder
