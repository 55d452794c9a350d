import { newAppId, newPayerId } from './ids.ts'
import type {
  PaypalSimulatorOptions, RuntimeCounters, SimulatorBuyer, SimulatorClient, SimulatorRequest, WebhookDeliveryOptions
} from './types.ts'

export const DEFAULT_SIMULATOR_CLIENT: Readonly<SimulatorClient> = Object.freeze({
  clientId: 'sim-client',
  clientSecret: 'sim-secret'
})

interface ClientRecord {
  clientSecret: string
  appId: string
}

export interface ResolvedConfig {
  accessTokenTtlSeconds: number
  paymentTtlSeconds: number
  idempotencyRetentionSeconds: number
  ordersIdempotencyRetentionSeconds: number
  paymentsIdempotencyRetentionSeconds: number
  pendingReasonCode: string
  publicUrl: string | undefined
  buyer: SimulatorBuyer
  delivery: Required<WebhookDeliveryOptions>
}

export interface SimulatorStore {
  readonly config: ResolvedConfig
  /** The simulated clock: the `now` option (or the system clock) plus what `clock.advance()` added. */
  readonly now: () => number
  /** Moves the simulated clock forward, then runs what each API registered (expiries with their webhooks). */
  advance: (milliseconds: number) => void
  onClockAdvance: (listener: () => void) => void
  readonly clients: Map<string, ClientRecord>
  readonly defaultClientId: string
  readonly tokens: Map<string, { clientId: string, expiresAt: number }>
  readonly counters: RuntimeCounters
  /** Every request received, oldest first. */
  readonly requests: SimulatorRequest[]
}

function positiveInteger (name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`PayPal simulator option "${name}" must be a positive integer, got ${String(value)}`)
  }
  return value
}

function nonNegativeInteger (name: string, value: number | undefined, fallback: number): number {
  return value === 0 ? 0 : positiveInteger(name, value, fallback)
}

export function assertClient (client: SimulatorClient): void {
  if (typeof client.clientId !== 'string' || client.clientId === '' ||
    typeof client.clientSecret !== 'string' || client.clientSecret === '') {
    throw new TypeError('PayPal simulator clients need a non-empty clientId and clientSecret')
  }
}

export function assertClientKnown (store: SimulatorStore, clientId: string): void {
  if (!store.clients.has(clientId)) throw new Error(`PayPal simulator: unknown client ${clientId}`)
}

function resolvePublicUrl (publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined) return undefined
  if (!URL.canParse(publicUrl)) throw new TypeError(`PayPal simulator option "publicUrl" is not a URL: ${publicUrl}`)
  return publicUrl.replace(/\/+$/, '')
}

export function createStore (options: PaypalSimulatorOptions): SimulatorStore {
  const clients = new Map<string, ClientRecord>()
  for (const client of options.clients ?? [DEFAULT_SIMULATOR_CLIENT]) {
    assertClient(client)
    clients.set(client.clientId, { clientSecret: client.clientSecret, appId: newAppId() })
  }
  const [defaultClientId] = clients.keys()
  if (defaultClientId === undefined) throw new TypeError('PayPal simulator option "clients" must not be empty')

  const delivery = options.webhookDelivery ?? {}
  const config: ResolvedConfig = {
    accessTokenTtlSeconds: positiveInteger('accessTokenTtlSeconds', options.accessTokenTtlSeconds, 32400),
    paymentTtlSeconds: positiveInteger('paymentTtlSeconds', options.paymentTtlSeconds, 10800),
    idempotencyRetentionSeconds: positiveInteger('idempotencyRetentionSeconds', options.idempotencyRetentionSeconds, 30 * 24 * 3600),
    ordersIdempotencyRetentionSeconds: positiveInteger('ordersIdempotencyRetentionSeconds', options.ordersIdempotencyRetentionSeconds, 6 * 3600),
    paymentsIdempotencyRetentionSeconds: positiveInteger('paymentsIdempotencyRetentionSeconds', options.paymentsIdempotencyRetentionSeconds, 45 * 24 * 3600),
    pendingReasonCode: options.pendingReasonCode ?? 'ECHECK',
    publicUrl: resolvePublicUrl(options.publicUrl),
    buyer: {
      email: 'buyer@example.com',
      firstName: 'Sim',
      lastName: 'Buyer',
      payerId: newPayerId(),
      countryCode: 'US',
      ...options.buyer
    },
    delivery: {
      maxAttempts: positiveInteger('webhookDelivery.maxAttempts', delivery.maxAttempts, 3),
      retryDelayMs: nonNegativeInteger('webhookDelivery.retryDelayMs', delivery.retryDelayMs, 100),
      timeoutMs: positiveInteger('webhookDelivery.timeoutMs', delivery.timeoutMs, 5000)
    }
  }

  const source = options.now ?? Date.now
  let offset = 0
  const listeners: Array<() => void> = []
  return {
    config,
    now: () => source() + offset,
    advance (milliseconds) {
      if (!Number.isFinite(milliseconds) || milliseconds < 0) throw new TypeError(`PayPal simulator: the clock only moves forward, got ${String(milliseconds)} ms`)
      offset += milliseconds
      for (const listener of listeners) listener()
    },
    onClockAdvance (listener) {
      listeners.push(listener)
    },
    clients,
    defaultClientId,
    tokens: new Map(),
    counters: {
      tokenGrants: 0,
      webhooksCreated: 0,
      idempotentReplays: 0,
      webhookEvents: 0,
      webhookDeliveryAttempts: 0,
      requestsReceived: 0
    },
    requests: []
  }
}

/** RFC 3339 UTC without milliseconds, as PayPal writes timestamps. */
export function paypalTime (epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z')
}
