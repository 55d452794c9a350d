import { Identity, Notify, type Action } from '../../../plugins/core/engine/index.ts'
import { paypalEventOf, rememberWebhookEvent, seenWebhookEvent } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { recordOf } from '../record.ts'
import type { CheckoutViews } from '../views.ts'
import { orderIdOf } from '../webhook-locator.ts'

/**
 * Under the payment's claim: PayPal's current order is fetched (events come late, twice and out
 * of order, so the event itself is not trusted) and taken through the status transitions. A
 * reversal is kept with its amount (`details.paywire_reversals`). Each event is processed once.
 */
export class NotifyAction implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalCheckoutApi
  readonly views: CheckoutViews

  constructor (api: PaypalCheckoutApi, views: CheckoutViews) {
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return paypalEventOf(request) !== undefined && (recordOf((request as Notify).model) !== undefined || (request as Notify).model instanceof Identity)
  }

  async execute (request: Notify): Promise<void> {
    const record = recordOf(request.model)
    const event = paypalEventOf(request)
    if (record === undefined || event === undefined || seenWebhookEvent(record, event)) return
    const orderId = typeof record.id === 'string' ? record.id : orderIdOf(event)
    if (orderId !== undefined) this.views.take(record, await this.api.getOrder(orderId), 'webhook')
    const resource = event.resource ?? {}
    if (event.event_type === 'PAYMENT.CAPTURE.REVERSED' && typeof resource.id === 'string') {
      const reversals = (record.paywire_reversals ??= []) as Array<Record<string, unknown>>
      if (!reversals.some((reversal) => reversal.id === resource.id)) reversals.push({ id: resource.id, amount: resource.amount })
    }
    rememberWebhookEvent(record, event)
  }
}
