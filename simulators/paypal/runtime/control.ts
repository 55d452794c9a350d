import { requestMatcher } from './faults.ts'
import type { FaultInjector } from './faults.ts'
import { newAppId } from './ids.ts'
import { issueAccessToken } from './oauth.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { certificatePath } from './signatures.ts'
import { assertClient, assertClientKnown } from './store.ts'
import type { RuntimeControl } from './types.ts'
import type { WebhookEngine } from './webhook-delivery.ts'

/** What tests drive the shared machinery with, next to the HTTP API (part of `app.simulator`). */
export function createRuntimeControl (runtime: SimulatorRuntime, webhooks: WebhookEngine, faults: FaultInjector): RuntimeControl {
  const { store } = runtime

  return {
    clock: {
      now: () => store.now(),
      advance: (milliseconds) => store.advance(milliseconds)
    },
    baseUrl: () => runtime.baseUrl(),
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
    requests (filter = {}) {
      const matches = requestMatcher(filter)
      return store.requests.filter((entry) => matches(entry.method, entry.path)).map((entry) => ({ ...entry }))
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
