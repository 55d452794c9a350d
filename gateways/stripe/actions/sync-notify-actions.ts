import type Stripe from 'stripe'
import { Notify, Sync } from '../../../plugins/core/engine/index.ts'
import { recordOf, rememberEvent, seenEvent, type StripeRecord } from '../record.ts'
import { StripeAction } from './stripe-action.ts'

/** The Stripe event a Notify carries (the notify route's); undefined for a Notify without one. */
export function stripeEventOf (request: Notify): Stripe.Event | undefined {
  return request.notification?.provider === 'Stripe' ? request.notification.event as Stripe.Event : undefined
}

/** Sync: the payment's state read from Stripe (StripeReads), through the status transitions. */
export class SyncAction extends StripeAction {
  supports (request: unknown): boolean {
    return request instanceof Sync && recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    await this.reads.sync(recordOf(request.model) as StripeRecord, 'sync')
  }
}

/**
 * Notify, under the payment's claim (the notify route located the payment): Stripe's events
 * arrive late, twice and out of order, so the event's body is not trusted: the payment is read
 * from Stripe (as Sync does) and the event id remembered, so a redelivery costs nothing. A
 * Notify without an event (the notify token route) reads the payment alike.
 */
export class NotifyAction extends StripeAction {
  supports (request: unknown): boolean {
    return request instanceof Notify && recordOf(request.model) !== undefined
  }

  async execute (request: Notify): Promise<void> {
    const record = recordOf(request.model) as StripeRecord
    const event = stripeEventOf(request)
    if (event !== undefined && seenEvent(record, event.id)) return
    await this.reads.sync(record, event === undefined ? 'sync' : 'webhook')
    if (event !== undefined) rememberEvent(record, event.id)
  }
}
