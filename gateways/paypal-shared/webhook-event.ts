import { HttpResponse, Notify, type ProviderNotification } from '../../plugins/core/engine/index.ts'

/** A PayPal webhook event as both APIs send it (v1 payments and sales, v2 orders and captures). */
export interface PaypalWebhookEvent {
  id: string
  event_type?: string
  resource_type?: string
  resource?: Record<string, any>
}

/** What a verified PayPal event says about itself, as Paywire's notifications carry it. */
export function paypalNotification (event: PaypalWebhookEvent, resourceIds: Record<string, string>,
  amount?: { value: unknown, currency: unknown }): ProviderNotification {
  const notification: ProviderNotification = { provider: 'PayPal', eventId: event.id, resourceIds, event }
  if (typeof event.event_type === 'string') notification.eventType = event.event_type
  if (typeof amount?.value === 'string' && typeof amount.currency === 'string') notification.amount = { value: amount.value, currency: amount.currency }
  return notification
}

/** The PayPal event a Notify request carries (the notify route's, or a PaypalWebhookNotify); undefined for any other Notify. */
export function paypalEventOf (request: unknown): PaypalWebhookEvent | undefined {
  const notification = request instanceof Notify ? request.notification : undefined
  return notification?.provider === 'PayPal' ? notification.event as PaypalWebhookEvent : undefined
}

/**
 * A verified PayPal event for one stored payment (its model, or its identity until the storage
 * loads it): what the notify route runs, for application code that replays an event itself.
 */
export class PaypalWebhookNotify extends Notify {
  constructor (model: unknown, event: PaypalWebhookEvent) {
    super(model, paypalNotification(event, {}))
  }

  get event (): PaypalWebhookEvent {
    return paypalEventOf(this) as PaypalWebhookEvent
  }
}

/** How many processed event ids a payment remembers, to drop redeliveries. */
const REMEMBERED_EVENTS = 50

/** The event in a delivery's body; undefined when it is not one (PayPal always sends an id). */
export function parseWebhookEvent (content: string): PaypalWebhookEvent | undefined {
  try {
    const event = JSON.parse(content) as PaypalWebhookEvent
    return typeof event?.id === 'string' ? event : undefined
  } catch {
    return undefined
  }
}

/** A 400 the notify route answers: PayPal redelivers nothing it was refused, and no payment is touched. */
export function refuseWebhook (message: string): HttpResponse {
  return new HttpResponse(message, 400, { 'content-type': 'text/plain; charset=utf-8' })
}

/** Whether the payment's record already took this event (PayPal redelivers until it gets a 2xx). */
export function seenWebhookEvent (record: Record<string, any>, event: PaypalWebhookEvent): boolean {
  return Array.isArray(record.paywire_webhook_events) && record.paywire_webhook_events.includes(event.id)
}

/** Remembers the event in the record, the newest REMEMBERED_EVENTS only. */
export function rememberWebhookEvent (record: Record<string, any>, event: PaypalWebhookEvent): void {
  const seen = (record.paywire_webhook_events ??= []) as string[]
  seen.push(event.id)
  if (seen.length > REMEMBERED_EVENTS) seen.splice(0, seen.length - REMEMBERED_EVENTS)
}
