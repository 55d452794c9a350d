import Fastify from 'fastify'
import type { FastifyInstance } from 'fastify'
import { createRuntimeControl } from './control.ts'
import { createFaultInjector } from './faults.ts'
import { installIdempotency } from './idempotency.ts'
import { registerOAuthRoutes, requireAccessToken } from './oauth.ts'
import { addFormParser, installPaypalProtocol } from './protocol.ts'
import { installRequestGate } from './request-gate.ts'
import { createRuntime } from './runtime.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { createDisputableRegistry } from './disputable.ts'
import type { DisputableRegistry } from './disputable.ts'
import { createStore } from './store.ts'
import type { PaypalSimulatorOptions, RuntimeControl, RuntimeCounters } from './types.ts'
import { createWebhookEngine } from './webhook-delivery.ts'
import type { WebhookEngine } from './webhook-delivery.ts'
import { registerCertificateRoute, registerWebhookRoutes } from './webhook-routes.ts'

type Register = (app: FastifyInstance) => void

/** The Fastify instance and what both APIs share, before either has added its routes. */
export interface SimulatorServer {
  readonly app: FastifyInstance
  readonly runtime: SimulatorRuntime
  readonly webhooks: WebhookEngine
  readonly control: RuntimeControl
  /** Sales and captures a buyer can dispute, registered by the APIs that own them. */
  readonly disputables: DisputableRegistry
  counters: () => RuntimeCounters
  /** Adds routes behind the Bearer check, where PayPal-Request-Id, faults and holds apply. */
  addApi: (register: Register) => void
  /** Adds buyer-facing pages: no token, form bodies accepted. */
  addPages: (register: Register) => void
}

/**
 * OAuth, the request gate (faults, holds), PayPal-Request-Id replay, PayPal's error bodies, the
 * webhook engine with its API and certificate: everything both APIs run on. State lives in the
 * instance, so any number of simulators can run in one process.
 */
export function createSimulatorServer (options: PaypalSimulatorOptions): SimulatorServer {
  const store = createStore(options)
  // close() must not wait for clients' keep-alive sockets (or a client still reading a slow answer).
  // PayPal serves `POST /v1/payments/payment/` as `/v1/payments/payment` (the legacy Node SDK adds the slash).
  const app: FastifyInstance = Fastify({ logger: options.logger ?? false, forceCloseConnections: true, routerOptions: { ignoreTrailingSlash: true } })
  const runtime = createRuntime(app, store)
  const faults = createFaultInjector(options.faults ?? [], runtime.closing)
  // After the runtime's own preClose hook, which lets the work in flight finish.
  app.addHook('preClose', function abandonUnreachedHolds (done) {
    faults.abandonHolds()
    done()
  })
  const webhooks = createWebhookEngine(app, runtime)
  for (const registration of options.webhooks ?? []) webhooks.subscribe(registration)

  installPaypalProtocol(app, runtime)
  // Order matters: the PayPal-Request-Id onSend hook stores the real answer before `after` faults replace it.
  const idempotency = installIdempotency(app, runtime)
  installRequestGate(app, runtime, faults, idempotency)

  // Registered when the app is ready, so the APIs' routes added until then are in.
  const apis: Register[] = []
  const pages: Register[] = []
  app.register(async function oauthApi (child: FastifyInstance) {
    registerOAuthRoutes(child, runtime)
  })
  app.register(async function restApi (child: FastifyInstance) {
    requireAccessToken(child, runtime)
    registerWebhookRoutes(child, runtime, webhooks)
    for (const register of apis) register(child)
  })
  app.register(async function buyerPages (child: FastifyInstance) {
    addFormParser(child)
    for (const register of pages) register(child)
  })
  registerCertificateRoute(app, webhooks)

  return {
    app,
    runtime,
    webhooks,
    control: createRuntimeControl(runtime, webhooks, faults),
    disputables: createDisputableRegistry(),
    counters: () => ({ ...store.counters }),
    addApi (register) {
      apis.push(register)
    },
    addPages (register) {
      pages.push(register)
    }
  }
}
