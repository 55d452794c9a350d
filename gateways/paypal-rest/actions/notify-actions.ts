import {
  GatewayAwareAction, GetHttpRequest, HttpResponse, Notify, Payment, type Action, type Logger, type StorageRegistry
} from '../../../plugins/core/engine/index.ts'
import type { PaypalResource, PaypalRestApi } from '../api.ts'
import { isProgress, paypalStatus, recordOf, type PaypalRecord } from '../details.ts'
import { PaymentDetails } from '../model/payment-details.ts'
import type { PaypalWebhookVerifier } from '../webhook-verifier.ts'

export interface WebhookEvent {
  id: string
  event_type?: string
  resource_type?: string
  resource?: Record<string, any>
}

/** A verified webhook event for one stored payment, with PayPal's current view of that payment. */
export class PaypalWebhookNotify extends Notify {
  readonly event: WebhookEvent
  readonly payment: PaypalResource

  constructor (model: unknown, event: WebhookEvent, payment: PaypalResource) {
    super(model)
    this.event = event
    this.payment = payment
  }
}

/** How many processed event ids a payment remembers, to drop redeliveries. */
const REMEMBERED_EVENTS = 50

function parseEvent (content: string): WebhookEvent | undefined {
  try {
    const event = JSON.parse(content) as WebhookEvent
    return typeof event?.id === 'string' ? event : undefined
  } catch {
    return undefined
  }
}

function refuse (message: string): HttpResponse {
  return new HttpResponse(message, 400, { 'content-type': 'text/plain; charset=utf-8' })
}

function seenBefore (record: PaypalRecord, event: WebhookEvent): boolean {
  return Array.isArray(record.paywire_webhook_events) && record.paywire_webhook_events.includes(event.id)
}

/**
 * PayPal webhooks arrive on the gateway-wide notify route (one static URL per account).
 * The delivery is verified first; then the payment it concerns is found by PayPal's
 * payment id. Events arrive late, twice and out of order, so PayPal's current view of the
 * payment is fetched rather than trusting the event. Unknown payments are acknowledged,
 * so PayPal stops retrying.
 */
export class NotifyNullAction extends GatewayAwareAction {
  readonly verifier: PaypalWebhookVerifier
  readonly api: PaypalRestApi
  readonly storages: StorageRegistry
  readonly logger: Logger

  constructor (verifier: PaypalWebhookVerifier, api: PaypalRestApi, storages: StorageRegistry, logger: Logger) {
    super()
    this.verifier = verifier
    this.api = api
    this.storages = storages
    this.logger = logger
  }

  supports (request: unknown): boolean {
    return request instanceof Notify && request.model === null
  }

  async execute (): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const event = parseEvent(http.content)
    if (event === undefined) throw refuse('Not a PayPal webhook event.')
    if (!await this.verifier.verify(http)) throw refuse('Webhook signature verification failed.')
    const paymentId = event.resource?.parent_payment ?? (event.resource_type === 'payment' ? event.resource?.id : undefined)
    const known = typeof paymentId === 'string' ? await this.#find(paymentId) : undefined
    if (known === undefined) {
      this.logger.info({ paypal: { event: event.id, type: event.event_type } }, 'PayPal webhook for no known payment: acknowledged')
      return
    }
    if (seenBefore(known instanceof Payment ? known.details : known as PaypalRecord, event)) return
    const payment = await this.api.getPayment(paymentId)
    // Loaded again after PayPal answered, and saved at once: a capture that ended meanwhile
    // is not overwritten, a payment deleted meanwhile is not brought back.
    const model = await this.#find(paymentId)
    if (model !== undefined) await this.gateway.execute(new PaypalWebhookNotify(model, event, payment))
  }

  async #find (paymentId: string): Promise<object | undefined> {
    const [payment] = this.storages.has(Payment) ? await this.storages.get(Payment).findBy({ 'details.id': paymentId }, { limit: 1 }) : []
    if (payment !== undefined) return payment
    const [details] = this.storages.has(PaymentDetails) ? await this.storages.get(PaymentDetails).findBy({ id: paymentId }, { limit: 1 }) : []
    return details
  }
}

/**
 * Takes PayPal's view of the payment only when it moves the payment forward: duplicate,
 * late and out-of-order events never move a payment back. Each event is processed once.
 */
export class NotifyAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof PaypalWebhookNotify && recordOf(request.model) !== undefined
  }

  execute (request: PaypalWebhookNotify): void {
    const record = recordOf(request.model) as PaypalRecord
    if (seenBefore(record, request.event)) return
    if (isProgress(paypalStatus(record), paypalStatus(request.payment))) Object.assign(record, request.payment)
    const seen = (record.paywire_webhook_events ??= []) as string[]
    seen.push(request.event.id)
    if (seen.length > REMEMBERED_EVENTS) seen.splice(0, seen.length - REMEMBERED_EVENTS)
  }
}
