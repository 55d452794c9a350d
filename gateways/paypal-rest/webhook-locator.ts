import { Payment } from '../../plugins/core/engine/index.ts'
import { PaypalWebhookLocator, type PaypalWebhookEvent, type WebhookLocation } from '../paypal-shared/index.ts'
import { recordOf } from './details.ts'
import { PaymentDetails } from './model/payment-details.ts'

/**
 * Payments v1 events name their payment by PayPal's payment id: the resource's
 * `parent_payment` (a sale, refund or authorization), or its own id when it is the payment.
 * Paywire keeps that id in a Payment's `details.id`, or in a REST details record's `id`.
 */
export class RestWebhookLocator extends PaypalWebhookLocator {
  locate (event: PaypalWebhookEvent): WebhookLocation {
    const resource = event.resource ?? {}
    const paymentId = resource.parent_payment ?? (event.resource_type === 'payment' ? resource.id : undefined)
    if (typeof paymentId !== 'string') return { resourceIds: {}, lookups: [] }
    const resourceIds: Record<string, string> = { payment: paymentId }
    if (typeof resource.id === 'string' && resource.id !== paymentId) resourceIds[event.resource_type ?? 'resource'] = resource.id
    if (typeof resource.sale_id === 'string') resourceIds.sale = resource.sale_id
    return {
      resourceIds,
      lookups: [{ model: Payment, criteria: { 'details.id': paymentId } }, { model: PaymentDetails, criteria: { id: paymentId } }],
      amount: { value: resource.amount?.total, currency: resource.amount?.currency }
    }
  }

  recordOf (model: object): Record<string, any> | undefined {
    return model instanceof Payment ? model.details : recordOf(model)
  }
}
