import { StripeApiError } from './errors.ts'
import type { Faults } from './faults.ts'
import type { Runtime } from './runtime.ts'
import type { EndpointInfo, StripeSimulatorControl } from './types.ts'
import type { EndpointRecord } from './webhooks.ts'

function info (record: EndpointRecord): EndpointInfo {
  return { id: record.endpoint.id, url: record.endpoint.url, secret: record.secrets[0] as string, enabledEvents: [...record.endpoint.enabled_events] }
}

export function createControl (runtime: Runtime, faults: Faults, baseUrl: () => string): StripeSimulatorControl {
  const { store, payments, checkout, refunds, disputes, webhooks, events } = runtime
  const copy = <T>(value: T): T => structuredClone(value)
  return {
    baseUrl,
    clock: { now: store.clock.now, advance: store.clock.advance },
    counters: () => ({ ...store.counters }),
    calls: faults.calls,
    events: () => copy(events.all()),
    faults: { inject: faults.inject, clear: faults.clear, remaining: faults.remaining, hanging: faults.hanging, untilHanging: faults.untilHanging, untilNoneHanging: faults.untilNoneHanging },
    payments: {
      intent: (id) => copy(store.intents.get(id)?.intent),
      processNext: payments.processNext,
      settle (id, outcome) {
        const record = payments.get(id)
        payments.settle(record, outcome)
        return copy(record.intent)
      },
      authenticate (id, pass) {
        const record = payments.get(id)
        try {
          payments.authenticate(record, pass, { id: null, idempotency_key: null })
        } catch (error) {
          // A decline after authentication answers 402; the PaymentIntent tells.
          if (!(error instanceof StripeApiError) || error.statusCode !== 402) throw error
        }
        return copy(record.intent)
      }
    },
    checkout: {
      session: (id) => copy(store.sessions.get(id)?.session),
      pay: (id, paymentMethod = 'pm_card_visa', email) => checkout.pay(checkout.get(id), paymentMethod, email ?? null)
    },
    refunds: {
      nextOutcome: refunds.nextOutcome,
      settle: (id, settlement, failureReason) => copy(refunds.settle(id, settlement, failureReason))
    },
    disputes: {
      open: (chargeId, options) => copy(disputes.open(chargeId, options)),
      update: (id, update) => copy(disputes.update(id, update)),
      close: (id, closing) => copy(disputes.close(id, closing))
    },
    webhooks: {
      subscribe: (init) => info(webhooks.addEndpoint(init)),
      endpoints: () => [...webhooks.endpoints.values()].map(info),
      rollSecret: webhooks.rollSecret,
      deliveries: (filter) => copy(webhooks.deliveries(filter)),
      dropNext: webhooks.dropNext,
      duplicateNext: webhooks.duplicateNext,
      delayNext: webhooks.delayNext,
      pause: webhooks.pause,
      resume: webhooks.resume,
      redeliver: (eventId, endpointId) => copy(webhooks.redeliver(eventId, endpointId)),
      waitForIdle: webhooks.waitForIdle
    }
  }
}
