import { approvePayment, cancelRedirect } from './approval.ts'
import { requestMatcher } from './faults.ts'
import type { FaultInjector } from './faults.ts'
import { issueAccessToken } from './oauth.ts'
import { paymentView, saleView } from './resources.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { reverseCompletedSale, settlePendingSale } from './sales.ts'
import { certificatePath } from './signatures.ts'
import { newAppId } from './ids.ts'
import { assertClient, assertClientKnown } from './store.ts'
import type { StoredPayment } from './store.ts'
import type { PaypalSimulatorControl } from './types.ts'
import type { WebhookEngine } from './webhook-delivery.ts'

/** What tests drive the simulator with, next to the HTTP API (`app.simulator`). */
export function createControl (runtime: SimulatorRuntime, webhooks: WebhookEngine, faults: FaultInjector): Omit<PaypalSimulatorControl, 'orders'> {
  const { store } = runtime

  function payment (paymentId: string): StoredPayment {
    const found = store.payments.get(paymentId)
    if (found === undefined) throw new Error(`PayPal simulator: no payment ${paymentId}`)
    return found
  }

  return {
    baseUrl: () => runtime.baseUrl(),
    counters: () => ({ ...store.counters }),
    addClient (client) {
      assertClient(client)
      store.clients.set(client.clientId, { clientSecret: client.clientSecret, appId: newAppId() })
    },
    issueAccessToken (clientId = store.defaultClientId) {
      assertClientKnown(store, clientId)
      return issueAccessToken(store, clientId)
    },
    expireAllTokens () {
      store.tokens.clear()
    },
    approve: (paymentId, options = {}) => approvePayment(runtime, webhooks, payment(paymentId), options, runtime.baseUrl()),
    cancel: (paymentId) => cancelRedirect(payment(paymentId)),
    setExecuteOutcome (outcome) {
      store.executeOutcomeOverride = outcome
    },
    settleSale: (saleId, outcome) => saleView(settlePendingSale(runtime, webhooks, saleId, outcome), runtime.baseUrl()),
    reverseSale: (saleId, options = {}) => saleView(reverseCompletedSale(runtime, webhooks, saleId, options), runtime.baseUrl()),
    requests (filter = {}) {
      const matches = requestMatcher(filter)
      return store.requests.filter((entry) => matches(entry.method, entry.path)).map((entry) => ({ ...entry }))
    },
    payment (paymentId) {
      const found = store.payments.get(paymentId)
      return found === undefined ? undefined : paymentView(found, runtime.baseUrl())
    },
    sale (saleId) {
      const found = store.sales.get(saleId)
      return found === undefined ? undefined : saleView(found, runtime.baseUrl())
    },
    faults: {
      inject: (rule) => faults.inject(rule),
      hold: (rule) => faults.hold(rule),
      clear: () => faults.clear(),
      remaining: () => faults.remaining()
    },
    webhooks: {
      subscribe: (registration) => webhooks.subscribe(registration),
      subscriptions: () => webhooks.subscriptions(),
      events: () => webhooks.events(),
      deliveries: (filter) => webhooks.deliveries(filter),
      redeliver: (eventId, options) => webhooks.redeliver(eventId, options),
      pause: () => webhooks.pause(),
      resume: (options) => webhooks.resume(options),
      waitForIdle: () => webhooks.waitForIdle(),
      sign: (body, options) => webhooks.sign(body, options),
      certificatePem: async () => (await webhooks.identity()).certificatePem,
      certificateAuthorityPem: async () => (await webhooks.identity()).certificateAuthorityPem,
      certificateUrl: () => `${runtime.baseUrl()}${certificatePath(webhooks.certificateId)}`
    }
  }
}
