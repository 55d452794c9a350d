import {
  GatewayAwareAction, GetHttpRequest, Identity, Notify, Payment,
  type Action, type ExclusiveExecutor, type Logger, type PaywireEvents, type StorageRegistry
} from '../../../plugins/core/engine/index.ts'
import {
  PaypalWebhookNotify, parseWebhookEvent, refuseWebhook, rememberWebhookEvent, reportUnmatchedWebhook, seenWebhookEvent,
  type PaypalRestConfig, type PaypalWebhookEvent, type PaypalWebhookVerifier
} from '../../paypal-shared/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, type PaypalRecord } from '../details.ts'
import { PaymentDetails } from '../model/payment-details.ts'
import type { PaypalViews } from '../views.ts'

/** The ids an event names (payment, sale, refund...): what the shop needs to find the money, and nothing about the payer. */
function resourceIds (event: PaypalWebhookEvent, paymentId: string): Record<string, string> {
  const ids: Record<string, string> = { payment: paymentId }
  const resource = event.resource ?? {}
  if (typeof resource.id === 'string' && resource.id !== paymentId) ids[event.resource_type ?? 'resource'] = resource.id
  if (typeof resource.sale_id === 'string') ids.sale = resource.sale_id
  return ids
}

/**
 * PayPal webhooks arrive on the gateway-wide notify route (one static URL per account).
 * The delivery is verified first; then the payment it concerns is found by PayPal's
 * payment id and the event runs on it as its only writer (ExclusiveExecutor): claimed,
 * read fresh, committed. A payment another request holds answers 409
 * (PAYWIRE_ERR_PAYMENT_BUSY), and PayPal delivers the event again later.
 *
 * An event about a payment Paywire does not know is money with no home: logged at error
 * with PayPal's ids, emitted as `money.unmatched`, and acknowledged — PayPal would
 * otherwise redeliver it for days, and the event is the shop's signal.
 */
export class NotifyNullAction extends GatewayAwareAction {
  readonly verifier: PaypalWebhookVerifier
  readonly storages: StorageRegistry
  readonly executor: ExclusiveExecutor
  readonly events: PaywireEvents
  readonly logger: Logger
  readonly config: PaypalRestConfig

  constructor (verifier: PaypalWebhookVerifier, storages: StorageRegistry, executor: ExclusiveExecutor, events: PaywireEvents,
    logger: Logger, config: PaypalRestConfig) {
    super()
    this.verifier = verifier
    this.storages = storages
    this.executor = executor
    this.events = events
    this.logger = logger
    this.config = config
  }

  supports (request: unknown): boolean {
    return request instanceof Notify && request.model === null
  }

  async execute (): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const event = parseWebhookEvent(http.content)
    if (event === undefined) throw refuseWebhook('Not a PayPal webhook event.')
    if (!await this.verifier.verify(http)) throw refuseWebhook('Webhook signature verification failed.')
    const paymentId = event.resource?.parent_payment ?? (event.resource_type === 'payment' ? event.resource?.id : undefined)
    if (typeof paymentId !== 'string') {
      this.logger.info({ paypal: { gateway: this.config.gatewayName, event: event.id, type: event.event_type } }, 'PayPal webhook about no payment: acknowledged')
      return
    }
    const known = await this.#find(paymentId)
    if (known === undefined) return await this.#unmatched(event, paymentId)
    // A redelivery of an event already processed costs no claim and no PayPal call.
    if (seenWebhookEvent((known instanceof Payment ? known.details : known) as PaypalRecord, event)) return
    await this.executor.execute(this.gateway, known, (target) => new PaypalWebhookNotify(target, event))
  }

  async #find (paymentId: string): Promise<object | undefined> {
    const [payment] = this.storages.has(Payment) ? await this.storages.get(Payment).findBy({ 'details.id': paymentId }, { limit: 1 }) : []
    if (payment !== undefined) return payment
    const [details] = this.storages.has(PaymentDetails) ? await this.storages.get(PaymentDetails).findBy({ id: paymentId }, { limit: 1 }) : []
    return details
  }

  async #unmatched (event: PaypalWebhookEvent, paymentId: string): Promise<void> {
    const ids = resourceIds(event, paymentId)
    const amount = event.resource?.amount
    await reportUnmatchedWebhook({ logger: this.logger, events: this.events, gatewayName: this.config.gatewayName }, event, ids,
      { value: amount?.total, currency: amount?.currency })
  }
}

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
    return request instanceof PaypalWebhookNotify && (recordOf(request.model) !== undefined || request.model instanceof Identity)
  }

  async execute (request: PaypalWebhookNotify): Promise<void> {
    const record = recordOf(request.model)
    if (record === undefined || seenWebhookEvent(record, request.event)) return
    this.views.take(record, await this.api.getPayment(record.id), 'webhook')
    if (request.event.event_type === 'PAYMENT.SALE.REVERSED') recordReversal(record, request.event.resource ?? {})
    rememberWebhookEvent(record, request.event)
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
