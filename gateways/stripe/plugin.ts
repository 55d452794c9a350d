import { gatewayPlugin } from '../../plugins/core/gateway-plugin.ts'
import { STRIPE_FACTORY_NAME, StripeGatewayFactory } from './factory.ts'

/** The stripe factory as a Fastify plugin. */
export const stripeGateway = gatewayPlugin({
  name: 'stripe',
  factoryName: STRIPE_FACTORY_NAME,
  createFactory: () => new StripeGatewayFactory()
})
export default stripeGateway
