import { Payment } from '../../plugins/core/engine/index.ts'
import { PaypalWebhookLocator, disputedTransactionId, isDisputeEvent, type PaypalWebhookEvent, type WebhookLocation } from '../paypal-shared/index.ts'
import type { PaypalRestApi } from './api.ts'
import { recordOf } from './details.ts'
import { PaymentDetails } from './model/payment-details.ts'

/**
 * Payments v1 events name their payment by PayPal's payment id: the resource's
 * `parent_payment` (a sale, refund or authorization), or its own id when it is the payment.
 * A reversal names none: PAYMENT.SALE.REVERSED's resource (PayPal's sample,
 * https://developer.paypal.com/api/rest/webhooks/event-names/#sales) has only its id, amount,
 * state and a self link to `/v1/payments/refund/{id}`, which is asked for its sale and payment.
 * Paywire keeps that id in a Payment's `details.id`, or in a REST details record's `id`.
 */
export class RestWebhookLocator extends PaypalWebhookLocator {
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['api']
  readonly api: PaypalRestApi

  constructor (api: PaypalRestApi) {
    super()
    this.api = api
  }

  async locate (event: PaypalWebhookEvent): Promise<WebhookLocation> {
    if (isDisputeEvent(event)) return await this.#locateDispute(event)
    const resource = await this.#withParent(event.resource ?? {})
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

  /** The resource, with its sale and payment read from PayPal when it names no payment but links to itself as a refund (a reversal). */
  async #withParent (resource: Record<string, any>): Promise<Record<string, any>> {
    if (resource.parent_payment !== undefined || typeof resource.id !== 'string' || !linksToRefund(resource)) return resource
    const refund = await this.api.getRefund(resource.id)
    return { ...resource, parent_payment: refund.parent_payment, sale_id: refund.sale_id }
  }

  /** A dispute names the disputed sale: its payment is the sale's `parent_payment`, asked of PayPal. */
  async #locateDispute (event: PaypalWebhookEvent): Promise<WebhookLocation> {
    const resource = event.resource ?? {}
    const saleId = disputedTransactionId(event)
    const resourceIds: Record<string, string> = {}
    if (typeof resource.dispute_id === 'string') resourceIds.dispute = resource.dispute_id
    const amount = { value: resource.dispute_amount?.value, currency: resource.dispute_amount?.currency_code }
    if (saleId === undefined) return { resourceIds, lookups: [], amount }
    resourceIds.sale = saleId
    const paymentId = (await this.api.getSale(saleId)).parent_payment
    if (typeof paymentId !== 'string') return { resourceIds, lookups: [], amount }
    resourceIds.payment = paymentId
    return { resourceIds, lookups: [{ model: Payment, criteria: { 'details.id': paymentId } }, { model: PaymentDetails, criteria: { id: paymentId } }], amount }
  }

  recordOf (model: object): Record<string, any> | undefined {
    return model instanceof Payment ? model.details : recordOf(model)
  }
}

function linksToRefund (resource: Record<string, any>): boolean {
  const links = Array.isArray(resource.links) ? resource.links as Array<Record<string, unknown>> : []
  return links.some((candidate) => candidate.rel === 'self' && typeof candidate.href === 'string' && candidate.href.includes('/v1/payments/refund/'))
}
