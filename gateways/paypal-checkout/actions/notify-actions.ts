import {
  GatewayAwareAction, GetHttpRequest, Identity, Notify, Payment,
  type Action, type ExclusiveExecutor, type Logger, type PaywireEvents, type StorageRegistry
} from '../../../plugins/core/engine/index.ts'
import {
  PaypalWebhookNotify, parseWebhookEvent, refuseWebhook, rememberWebhookEvent, reportUnmatchedWebhook, seenWebhookEvent,
  type PaypalRestConfig, type PaypalWebhookEvent, type PaypalWebhookVerifier
} from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { recordOf, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'

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
 * Orders v2 webhooks on the gateway-wide notify route: verified with the same verifier as v1
 * (online or offline), tied to the payment by the order id (`supplementary_data.related_ids.order_id`)
 * or the custom id, then run under the payment's claim (ExclusiveExecutor). An event about no
 * known payment is logged at error, emitted as `money.unmatched` and acknowledged.
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
    const orderId = orderIdOf(event)
    const customId = customIdOf(event)
    const known = await this.#find(orderId, customId)
    if (known === undefined) return await this.#unmatched(event, orderId, customId)
    if (seenWebhookEvent(known.details as CheckoutRecord, event)) return
    await this.executor.execute(this.gateway, known, (target) => new PaypalWebhookNotify(target, event))
  }

  async #find (orderId: string | undefined, customId: string | undefined): Promise<Payment | undefined> {
    if (!this.storages.has(Payment)) return undefined
    const storage = this.storages.get(Payment)
    if (orderId !== undefined) {
      const [payment] = await storage.findBy({ 'details.id': orderId }, { limit: 1 })
      if (payment !== undefined) return payment
    }
    if (customId === undefined) return undefined
    const payment = await storage.find(customId)
    // The custom id names a payment of this gateway whose order is this one (or not known yet).
    if (payment === null || payment.gatewayName !== this.config.gatewayName) return undefined
    return payment.details.id === undefined || payment.details.id === orderId ? payment : undefined
  }

  async #unmatched (event: PaypalWebhookEvent, orderId: string | undefined, customId: string | undefined): Promise<void> {
    const ids: Record<string, string> = {}
    if (orderId !== undefined) ids.order = orderId
    if (customId !== undefined) ids.custom = customId
    if (typeof event.resource?.id === 'string' && event.resource.id !== orderId) ids[event.resource_type ?? 'resource'] = event.resource.id
    if (Object.keys(ids).length === 0) {
      this.logger.info({ paypal: { gateway: this.config.gatewayName, event: event.id, type: event.event_type } }, 'PayPal webhook about no order: acknowledged')
      return
    }
    const amount = event.resource?.amount
    await reportUnmatchedWebhook({ logger: this.logger, events: this.events, gatewayName: this.config.gatewayName }, event, ids,
      { value: amount?.value, currency: amount?.currency_code })
  }
}

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
    return request instanceof PaypalWebhookNotify && (recordOf(request.model) !== undefined || request.model instanceof Identity)
  }

  async execute (request: PaypalWebhookNotify): Promise<void> {
    const record = recordOf(request.model)
    if (record === undefined || seenWebhookEvent(record, request.event)) return
    const orderId = typeof record.id === 'string' ? record.id : orderIdOf(request.event)
    if (orderId !== undefined) this.views.take(record, await this.api.getOrder(orderId), 'webhook')
    const resource = request.event.resource ?? {}
    if (request.event.event_type === 'PAYMENT.CAPTURE.REVERSED' && typeof resource.id === 'string') {
      const reversals = (record.paywire_reversals ??= []) as Array<Record<string, unknown>>
      if (!reversals.some((reversal) => reversal.id === resource.id)) reversals.push({ id: resource.id, amount: resource.amount })
    }
    rememberWebhookEvent(record, request.event)
  }
}
