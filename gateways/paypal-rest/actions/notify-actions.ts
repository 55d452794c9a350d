import { Identity, Notify, type Action } from '../../../plugins/core/engine/index.ts'
import { paypalEventOf, rememberWebhookEvent, seenWebhookEvent } from '../../paypal-shared/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, type PaypalRecord } from '../details.ts'
import type { PaypalViews } from '../views.ts'

/**
 * Runs under the payment's claim, on the payment as stored: PayPal's current view of the
 * payment is fetched (events arrive late, twice and out of order, so the event itself is not
 * trusted) and taken through the status transitions. Each event is processed once. A
 * verified reversal is kept with its amount (`details.paywire_reversals`). A payment
 * deleted since it was found stays deleted.
 */
export class NotifyAction implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']

  readonly api: PaypalRestApi
  readonly views: PaypalViews

  constructor (api: PaypalRestApi, views: PaypalViews) {
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
    this.views.take(record, await this.api.getPayment(record.id), 'webhook')
    if (event.event_type === 'PAYMENT.SALE.REVERSED') recordReversal(record, event.resource ?? {})
    rememberWebhookEvent(record, event)
  }
}

/** A chargeback as PayPal's REVERSED event tells it: its own id, the amount taken back (negative in the event) and why. */
function recordReversal (record: PaypalRecord, resource: Record<string, any>): void {
  if (typeof resource.id !== 'string') return
  const reversals = (record.paywire_reversals ??= []) as Array<Record<string, unknown>>
  if (reversals.some((reversal) => reversal.id === resource.id)) return
  const { total, currency } = (resource.amount ?? {}) as { total?: unknown, currency?: unknown }
  const reversal: Record<string, unknown> = { id: resource.id }
  if (typeof total === 'string' && typeof currency === 'string') reversal.amount = { total: total.replace(/^-/, ''), currency }
  for (const field of ['reason_code', 'sale_id']) if (typeof resource[field] === 'string') reversal[field] = resource[field]
  reversals.push(reversal)
}
