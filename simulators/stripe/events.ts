import type Stripe from 'stripe'
import { newId } from './ids.ts'
import type { Store } from './store.ts'

/*
 * Events (https://docs.stripe.com/api/events/object): every state change the simulator makes is
 * one, with a snapshot of the object as it was then in `data.object`, `request` naming the API
 * request that caused it (`id: null` for automatic changes: expiries, the buyer's hosted page,
 * controls), `pending_webhooks` counting the endpoints still waiting for a successful delivery,
 * and `api_version` the version events are rendered in.
 */

export interface EventOrigin {
  id: string | null
  idempotency_key: string | null
}

/** Changes Stripe makes on its own (expiries) or that come from the dashboard or a buyer. */
export const AUTOMATIC: EventOrigin = { id: null, idempotency_key: null }

export type EventObject = Stripe.PaymentIntent | Stripe.Charge | Stripe.Refund | Stripe.Dispute | Stripe.Checkout.Session

export interface EventLog {
  emit: (type: string, object: EventObject, origin: EventOrigin, previous?: Record<string, unknown>) => Stripe.Event
  get: (id: string) => Stripe.Event | undefined
  /** Oldest first. */
  all: () => Stripe.Event[]
  /** Called with each new event, to deliver it. */
  onEvent: (listener: (event: Stripe.Event) => void) => void
}

export function createEventLog (store: Store): EventLog {
  const events = new Map<string, Stripe.Event>()
  const listeners: Array<(event: Stripe.Event) => void> = []
  return {
    emit (type, object, origin, previous) {
      const event = {
        id: newId('evt'),
        object: 'event',
        api_version: store.config.apiVersion,
        created: store.clock.unix(),
        data: { object: structuredClone(object), ...(previous === undefined ? {} : { previous_attributes: previous }) },
        livemode: false,
        pending_webhooks: 0,
        request: { ...origin },
        type
      } as unknown as Stripe.Event
      events.set(event.id, event)
      store.counters.events++
      for (const listener of listeners) listener(event)
      return event
    },
    get: (id) => events.get(id),
    all: () => [...events.values()],
    onEvent (listener) {
      listeners.push(listener)
    }
  }
}
