import type { PaymentEvent, PaymentEventType } from './payment-events.ts'
import type { ReconcileEventMap } from '../reconcile/events.ts'

/**
 * A provider told Paywire about money (a webhook) for a payment it does not know: a lost
 * record, or another shop on the same provider account. The shop must look into it.
 */
export interface UnmatchedNotification {
  gateway: string
  provider: string
  /** The provider's event id and type, when it has them. */
  eventId?: string
  eventType?: string
  /** The provider's ids of what the notification is about (payment, sale, capture...). */
  resourceIds: Record<string, string>
  /** What the provider said moved, in its own format, if anything. */
  amount?: { value: string, currency: string }
}

/** money.unmatched as delivered: the notification, with the event's id and time. */
export interface UnmatchedMoneyEvent extends UnmatchedNotification {
  id: string
  type: 'money.unmatched'
  occurredAt: string
}

export type PaywireEventMap = { 'money.unmatched': UnmatchedMoneyEvent } & { [K in PaymentEventType]: PaymentEvent & { type: K } } & ReconcileEventMap
export type PaywireEventType = keyof PaywireEventMap
export type AnyPaywireEvent = PaywireEventMap[PaywireEventType]
