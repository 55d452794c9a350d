import { HttpResponse, Notify, type Logger, type PaywireEvents, type UnmatchedNotification } from '../../plugins/core/engine/index.ts'

/** A PayPal webhook event as both APIs send it (v1 payments and sales, v2 orders and captures). */
export interface PaypalWebhookEvent {
  id: string
  event_type?: string
  resource_type?: string
  resource?: Record<string, any>
}

/** A verified webhook event for one stored payment (its model, or its identity until the storage loads it). */
export class PaypalWebhookNotify extends Notify {
  readonly event: PaypalWebhookEvent

  constructor (model: unknown, event: PaypalWebhookEvent) {
    super(model)
    this.event = event
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

/**
 * A verified event about money no stored payment owns: acknowledged (PayPal would redeliver it
 * for days otherwise), logged at error and emitted as money.unmatched for the shop to act on.
 */
export async function reportUnmatchedWebhook (
  to: { logger: Logger, events: PaywireEvents, gatewayName: string }, event: PaypalWebhookEvent,
  resourceIds: Record<string, string>, amount: { value: unknown, currency: unknown }
): Promise<void> {
  const notification: UnmatchedNotification = { gateway: to.gatewayName, provider: 'PayPal', eventId: event.id, eventType: event.event_type, resourceIds }
  if (typeof amount.value === 'string' && typeof amount.currency === 'string') notification.amount = { value: amount.value, currency: amount.currency }
  to.logger.error({ paypal: { gateway: to.gatewayName, event: event.id, type: event.event_type, ...resourceIds } },
    'PayPal webhook about a payment Paywire does not know: acknowledged, emitted as money.unmatched')
  await to.events.emit('money.unmatched', notification)
}
