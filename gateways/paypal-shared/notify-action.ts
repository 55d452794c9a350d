import { Identity, type Action, type Notify } from '../../plugins/core/engine/index.ts'
import type { PaypalRestClient } from './client.ts'
import { disputeOfEvent, isDisputeEvent, recordDispute } from './disputes.ts'
import { paypalEventOf, rememberWebhookEvent, seenWebhookEvent, type PaypalWebhookEvent } from './webhook-event.ts'

/**
 * A verified PayPal webhook, run under the payment's claim on the payment as stored, for both
 * PayPal APIs: PayPal's current view of the payment is fetched (events arrive late, twice and
 * out of order, so the event itself is not trusted) and taken through the status transitions;
 * a reversal (chargeback) is kept with its amount (`details.paywire_reversals`); a dispute
 * (CUSTOMER.DISPUTE.*) is read from PayPal (or, when the app may not read disputes, taken from the
 * signed delivery) and kept (`details.paywire_disputes`); each event is
 * processed once. A payment deleted since it was found stays deleted. Each API says only how
 * its record is found and fetched, and which event reports a reversal.
 */
export abstract class PaypalNotifyAction<R extends Record<string, any>, Api extends PaypalRestClient, Views> implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']

  readonly api: Api
  readonly views: Views
  /** The event type by which this API reports money taken back from the shop. */
  protected abstract readonly reversalEvent: string

  constructor (api: Api, views: Views) {
    this.api = api
    this.views = views
  }

  /** The PayPal record a payment model holds. */
  protected abstract recordOf (model: unknown): R | undefined

  /** Takes PayPal's current view of the payment into `record`. */
  protected abstract refresh (record: R, event: PaypalWebhookEvent): Promise<void>

  supports (request: unknown): boolean {
    return paypalEventOf(request) !== undefined && (this.recordOf((request as Notify).model) !== undefined || (request as Notify).model instanceof Identity)
  }

  async execute (request: Notify): Promise<void> {
    const record = this.recordOf(request.model)
    const event = paypalEventOf(request)
    if (record === undefined || event === undefined || seenWebhookEvent(record, event)) return
    if (isDisputeEvent(event) && typeof event.resource?.dispute_id === 'string') {
      recordDispute(record, await disputeOfEvent(this.api, event.resource as Record<string, any> & { dispute_id: string }))
    }
    await this.refresh(record, event)
    if (event.event_type === this.reversalEvent) recordReversal(record, event.resource ?? {})
    rememberWebhookEvent(record, event)
  }
}

/**
 * A chargeback as PayPal's REVERSED event tells it, kept once by its own id: the amount taken
 * back (Payments v1 gives it negative; it is kept as a positive amount in the API's own shape)
 * and, where PayPal says them, why and from which sale.
 */
export function recordReversal (record: Record<string, any>, resource: Record<string, any>): void {
  if (typeof resource.id !== 'string') return
  const reversals = (record.paywire_reversals ??= []) as Array<Record<string, unknown>>
  if (reversals.some((reversal) => reversal.id === resource.id)) return
  const reversal: Record<string, unknown> = { id: resource.id }
  const amount = withoutSign(resource.amount)
  if (amount !== undefined) reversal.amount = amount
  for (const field of ['reason_code', 'sale_id']) if (typeof resource[field] === 'string') reversal[field] = resource[field]
  reversals.push(reversal)
}

/** `{ total, currency }` (v1) or `{ value, currency_code }` (v2) with the number's sign dropped; undefined when it is neither. */
function withoutSign (amount: unknown): Record<string, string> | undefined {
  const { total, currency, value, currency_code: currencyCode } = (amount ?? {}) as Record<string, unknown>
  if (typeof total === 'string' && typeof currency === 'string') return { total: total.replace(/^-/, ''), currency }
  if (typeof value === 'string' && typeof currencyCode === 'string') return { value: value.replace(/^-/, ''), currency_code: currencyCode }
  return undefined
}
