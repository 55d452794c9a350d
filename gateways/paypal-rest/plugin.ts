import { gatewayPlugin } from '../../plugins/core/gateway-plugin.ts'
import { PAYPAL_REST_FACTORY_NAME, PaypalRestGatewayFactory } from './factory.ts'
import { PAYMENT_DETAILS_ID_PROPERTY, PaymentDetails } from './model/payment-details.ts'

/**
 * The paypal_rest factory as a Fastify plugin; it also gives the REST details record a
 * storage of the application's kind (memory or Redis), for the second preparation procedure.
 */
export const paypalRestGateway = gatewayPlugin({
  name: 'paypal-rest',
  factoryName: PAYPAL_REST_FACTORY_NAME,
  createFactory: () => new PaypalRestGatewayFactory(),
  setup: (app) => {
    if (app.paywire.hasStorage(PaymentDetails)) return
    app.paywire.addStorage(PaymentDetails, app.paywire.getStorageBackend()
      .createStorage(PaymentDetails, { idProperty: PAYMENT_DETAILS_ID_PROPERTY, indexes: ['id'] }))
  }
})
export default paypalRestGateway
