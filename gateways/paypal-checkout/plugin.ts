import { gatewayPlugin } from '../../plugins/core/gateway-plugin.ts'
import { PAYPAL_CHECKOUT_FACTORY_NAME, PaypalCheckoutGatewayFactory } from './factory.ts'

/** The paypal_checkout factory as a Fastify plugin. */
export const paypalCheckoutGateway = gatewayPlugin({
  name: 'paypal-checkout',
  factoryName: PAYPAL_CHECKOUT_FACTORY_NAME,
  createFactory: () => new PaypalCheckoutGatewayFactory()
})
export default paypalCheckoutGateway
