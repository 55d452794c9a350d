import { Payment } from '../../plugins/core/engine/index.ts'
import { PaypalWebhookLocator, type PaypalRestConfig, type PaypalWebhookEvent, type WebhookLocation } from '../paypal-shared/index.ts'

/** The order an event is about: the order itself, or the one a capture, authorization or refund names. */
export function orderIdOf (event: PaypalWebhookEvent): string | undefined {
  const resource = event.resource ?? {}
  if (event.resource_type === 'checkout-order') return typeof resource.id === 'string' ? resource.id : undefined
  const orderId = resource.supplementary_data?.related_ids?.order_id
  return typeof orderId === 'string' ? orderId : undefined
}

/** The custom id Paywire put on the order (the Payment's id): on captures and authorizations, or the order's unit. */
export function customIdOf (event: PaypalWebhookEvent): string | undefined {
  const resource = event.resource ?? {}
  const customId = resource.custom_id ?? resource.purchase_units?.[0]?.custom_id
  return typeof customId === 'string' ? customId : undefined
}

/**
 * Orders v2 events name their payment by the order id, or by the custom id Paywire set (the
 * Payment's id): a payment found by custom id must be this gateway's, with this order or none yet.
 */
export class CheckoutWebhookLocator extends PaypalWebhookLocator {
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['config']
  readonly config: PaypalRestConfig

  constructor (config: PaypalRestConfig) {
    super()
    this.config = config
  }

  locate (event: PaypalWebhookEvent): WebhookLocation {
    const orderId = orderIdOf(event)
    const customId = customIdOf(event)
    const resourceIds: Record<string, string> = {}
    if (orderId !== undefined) resourceIds.order = orderId
    if (customId !== undefined) resourceIds.custom = customId
    if (typeof event.resource?.id === 'string' && event.resource.id !== orderId) resourceIds[event.resource_type ?? 'resource'] = event.resource.id
    const lookups: WebhookLocation['lookups'] = []
    if (orderId !== undefined) lookups.push({ model: Payment, criteria: { 'details.id': orderId } })
    if (customId !== undefined) {
      const gatewayName = this.config.gatewayName
      lookups.push({
        model: Payment,
        id: customId,
        accept: (payment) => (payment as Payment).gatewayName === gatewayName &&
          ((payment as Payment).details.id === undefined || (payment as Payment).details.id === orderId)
      })
    }
    const amount = event.resource?.amount
    return { resourceIds, lookups, amount: { value: amount?.value, currency: amount?.currency_code } }
  }

  recordOf (model: object): Record<string, any> | undefined {
    return model instanceof Payment ? model.details : undefined
  }
}
