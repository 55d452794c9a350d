import type Stripe from 'stripe'
import {
  GatewayAwareAction, GetHttpRequest, HttpResponse, LocateNotification, Payment, type PaymentLookup, type ProviderNotification
} from '../../plugins/core/engine/index.ts'
import type { StripeApi } from './api.ts'
import { paymentIntentIdOf, seenEvent } from './record.ts'

/**
 * Events about money (https://docs.stripe.com/api/events/types): one about an object no stored
 * payment owns is reported as money.unmatched. Other events without Paywire's metadata (another
 * integration's PaymentIntent created or canceled) concern no payment of this shop.
 */
export const MONEY_EVENTS: ReadonlySet<string> = new Set([
  'checkout.session.completed', 'checkout.session.async_payment_succeeded',
  'payment_intent.succeeded', 'payment_intent.amount_capturable_updated',
  'charge.succeeded', 'charge.captured', 'charge.refunded', 'charge.refund.updated',
  'refund.created', 'refund.updated', 'refund.failed',
  'charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed', 'charge.dispute.funds_withdrawn', 'charge.dispute.funds_reinstated'
])

export interface EventLocation {
  resourceIds: Record<string, string>
  lookups: PaymentLookup[]
  amount?: { value: string, currency: string }
}

/** The Paywire payment an object names: its metadata (every object Paywire makes), or a session's client_reference_id. */
export function paywirePaymentOf (object: Record<string, any>): string | undefined {
  const named = object.metadata?.paywire_payment ?? (object.object === 'checkout.session' ? object.client_reference_id : undefined)
  return typeof named === 'string' && named !== '' ? named : undefined
}

/**
 * Where an event's payment is stored: by the Paywire payment its object names (accepted only if
 * it is this gateway's and holds that PaymentIntent or none yet), else by the PaymentIntent it
 * names (`details.id`, which the storages index), if that payment is this gateway's.
 */
export function locateEvent (event: Stripe.Event, gatewayName: string): EventLocation {
  const object = event.data.object as unknown as Record<string, any>
  const paymentId = paywirePaymentOf(object)
  if (paymentId === undefined && !MONEY_EVENTS.has(event.type)) return { resourceIds: {}, lookups: [] }
  const intent = paymentIntentIdOf(object)
  const resourceIds: Record<string, string> = {}
  if (intent !== undefined) resourceIds.payment_intent = intent
  if (typeof object.id === 'string' && object.id !== intent) resourceIds[String(object.object ?? 'object').replace('.', '_')] = object.id
  if (typeof object.charge === 'string') resourceIds.charge = object.charge
  const lookups: PaymentLookup[] = []
  const ours = (model: object): boolean => (model as Payment).gatewayName === gatewayName
  if (paymentId !== undefined) {
    lookups.push({
      model: Payment,
      id: paymentId,
      accept: (model) => ours(model) && ((model as Payment).details.id === undefined || intent === undefined || (model as Payment).details.id === intent)
    })
  }
  if (intent !== undefined) lookups.push({ model: Payment, criteria: { 'details.id': intent }, accept: ours })
  const value = object.amount ?? object.amount_total
  const location: EventLocation = { resourceIds, lookups }
  if (typeof value === 'number' && typeof object.currency === 'string') location.amount = { value: String(value), currency: object.currency }
  return location
}

/** A 400 the notify route answers: Stripe retries a refused delivery, and no payment is touched. */
export function refuseWebhook (message: string): HttpResponse {
  return new HttpResponse(message, 400, { 'content-type': 'text/plain; charset=utf-8' })
}

/**
 * The gateway-wide notify route's first step (`/payment/notify/unsafe/<gateway>`): the delivery
 * is read as received and refused (400) unless its Stripe-Signature verifies on the raw body
 * with one of the gateway's webhook secrets, within the tolerance (the official SDK's
 * `webhooks.constructEvent`). The route then finds the payment and runs its Notify under the
 * payment's claim, or reports money no payment owns (money.unmatched).
 */
export class LocateWebhookAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['api']
  readonly api: StripeApi

  constructor (api: StripeApi) {
    super()
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof LocateNotification
  }

  async execute (request: LocateNotification): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const signature = http.headers['stripe-signature']
    if (typeof signature !== 'string' || signature === '') throw refuseWebhook('Not a Stripe webhook delivery: it has no Stripe-Signature header.')
    if (this.api.config.webhookSecrets().length === 0) throw refuseWebhook('This gateway has no webhook secret (webhook_secrets): deliveries cannot be verified.')
    let event: Stripe.Event | undefined
    try {
      event = this.api.verifyWebhook(http.content, signature)
    } catch {
      throw refuseWebhook('Not a Stripe event.')
    }
    if (event === undefined) throw refuseWebhook('Webhook signature verification failed.')
    const { resourceIds, lookups, amount } = locateEvent(event, this.api.config.gatewayName)
    const notification: ProviderNotification = { provider: 'Stripe', eventId: event.id, eventType: event.type, resourceIds, event }
    if (amount !== undefined) notification.amount = amount
    request.notification = notification
    request.lookups = lookups
    const seen = event.id
    request.handled = (model) => model instanceof Payment && seenEvent(model.details, seen)
  }
}
