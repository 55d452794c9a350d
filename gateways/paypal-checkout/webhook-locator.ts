import { Payment } from '../../plugins/core/engine/index.ts'
import {
  PaypalWebhookLocator, disputedCustomId, disputedTransactionId, isDisputeEvent, type PaypalRestConfig, type PaypalWebhookEvent, type WebhookLocation
} from '../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from './api.ts'

/**
 * The order an event names by itself: the order, or the one a capture or authorization names in
 * `supplementary_data.related_ids`, or links to as `up`. A refund names neither: its `up` link is
 * its capture (https://developer.paypal.com/docs/api/payments/v2/#refunds_get).
 */
export function orderIdOf (event: PaypalWebhookEvent): string | undefined {
  const resource = event.resource ?? {}
  if (event.resource_type === 'checkout-order') return typeof resource.id === 'string' ? resource.id : undefined
  const orderId = resource.supplementary_data?.related_ids?.order_id
  if (typeof orderId === 'string') return orderId
  return upLinkId(resource, 'checkout/orders')
}

/** The id at the end of the resource's `up` link, when it points at `kind` (`checkout/orders`, `payments/captures`). */
function upLinkId (resource: Record<string, any>, kind: string): string | undefined {
  const links = Array.isArray(resource.links) ? resource.links as Array<Record<string, unknown>> : []
  const up = links.find((link) => link.rel === 'up' && typeof link.href === 'string')
  const match = up === undefined ? null : new RegExp(`/v2/${kind}/([^/?#]+)$`).exec(up.href as string)
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1])
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
  static readonly inject = ['config', 'api']
  readonly config: PaypalRestConfig
  readonly api: PaypalCheckoutApi

  constructor (config: PaypalRestConfig, api: PaypalCheckoutApi) {
    super()
    this.config = config
    this.api = api
  }

  async locate (event: PaypalWebhookEvent): Promise<WebhookLocation> {
    if (isDisputeEvent(event)) return await this.#locateDispute(event)
    const orderId = orderIdOf(event) ?? await this.#orderOfParentCapture(event)
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

  /**
   * A dispute names the disputed capture and the custom id Paywire set on it (the Payment's id);
   * without the custom id, the capture is fetched for its order.
   */
  async #locateDispute (event: PaypalWebhookEvent): Promise<WebhookLocation> {
    const resource = event.resource ?? {}
    const captureId = disputedTransactionId(event)
    const customId = disputedCustomId(event)
    const resourceIds: Record<string, string> = {}
    if (typeof resource.dispute_id === 'string') resourceIds.dispute = resource.dispute_id
    if (captureId !== undefined) resourceIds.capture = captureId
    const lookups: WebhookLocation['lookups'] = []
    const gatewayName = this.config.gatewayName
    if (customId !== undefined) {
      resourceIds.custom = customId
      lookups.push({ model: Payment, id: customId, accept: (payment) => (payment as Payment).gatewayName === gatewayName })
    } else if (captureId !== undefined) {
      const orderId = await this.#orderOfCapture(captureId)
      if (orderId !== undefined) {
        resourceIds.order = orderId
        lookups.push({ model: Payment, criteria: { 'details.id': orderId } })
      }
    }
    const amount = resource.dispute_amount
    return { resourceIds, lookups, amount: { value: amount?.value, currency: amount?.currency_code } }
  }

  /**
   * A refund or reversal names its order only through its capture (`up`): without the custom id
   * Paywire sets on its own refunds (a reversal, a refund made in PayPal's dashboard), the capture
   * is fetched for the order it belongs to.
   */
  async #orderOfParentCapture (event: PaypalWebhookEvent): Promise<string | undefined> {
    const captureId = upLinkId(event.resource ?? {}, 'payments/captures')
    if (captureId === undefined || customIdOf(event) !== undefined) return undefined
    return await this.#orderOfCapture(captureId)
  }

  /** The order a capture belongs to, asked of PayPal (a failed call is thrown: PayPal delivers again). */
  async #orderOfCapture (captureId: string): Promise<string | undefined> {
    const orderId = (await this.api.getCapture(captureId)).supplementary_data?.related_ids?.order_id
    return typeof orderId === 'string' ? orderId : undefined
  }

  recordOf (model: object): Record<string, any> | undefined {
    return model instanceof Payment ? model.details : undefined
  }
}
