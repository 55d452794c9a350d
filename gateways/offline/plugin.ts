import { gatewayPlugin } from '../../plugins/core/gateway-plugin.ts'
import { OFFLINE_FACTORY_NAME, OfflineGatewayFactory } from './factory.ts'

/** The offline gateway factory as a Fastify plugin: register it after the paywire plugin. */
export const offlineGateway = gatewayPlugin({
  name: 'offline',
  factoryName: OFFLINE_FACTORY_NAME,
  createFactory: () => new OfflineGatewayFactory()
})
export default offlineGateway
