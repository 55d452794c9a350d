import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import { refuseUnknownOptions } from '../suggest.ts'

export interface EventDeliveryOptions {
  /** Deliveries of one event before it is parked as dead. Default 8. */
  maxAttempts?: number
  /** The first retry's delay (ms); each next one doubles, up to retryMaxMs. Default 1000. */
  retryBaseMs?: number
  /** Default 300000 (5 minutes). */
  retryMaxMs?: number
  /** How often the outbox is read for events other instances committed or a crash left (ms). Default 1000. */
  pollIntervalMs?: number
  /**
   * How long an instance holds a payment's events unless it renews the lease (ms): renewed every
   * third of it while handlers run, it bounds how long a dead instance keeps them. Default 30000.
   */
  leaseMs?: number
  /** How long close() waits for handlers in flight (ms). Default 10000. */
  closeTimeoutMs?: number
  /**
   * How long one handler may take with one event (ms) before the attempt counts as failed
   * (retried like a throw, logged at warn). Default 5000.
   */
  handlerTimeoutMs?: number
  /**
   * How often an outbox that can lose due marks (a Redis Cluster) is searched for events
   * nobody marked (ms): a SCAN of every master. Default 300000 (5 minutes).
   */
  recoverIntervalMs?: number
}

const DEFAULTS: Required<EventDeliveryOptions> = {
  maxAttempts: 8,
  retryBaseMs: 1000,
  retryMaxMs: 300_000,
  pollIntervalMs: 1000,
  leaseMs: 30_000,
  closeTimeoutMs: 10_000,
  handlerTimeoutMs: 5000,
  recoverIntervalMs: 300_000
}

export const EVENT_DELIVERY_OPTION_NAMES: readonly string[] = Object.keys(DEFAULTS)

/** Options that are delays or counts where 0 would mean "never" or "spin". */
const AT_LEAST_ONE = new Set(['maxAttempts', 'pollIntervalMs', 'leaseMs', 'handlerTimeoutMs', 'recoverIntervalMs'])

export function eventDeliveryOptions (options: EventDeliveryOptions = {}): Required<EventDeliveryOptions> {
  // A misspelt option (handlerTimeout) would otherwise leave its default in force without a word.
  refuseUnknownOptions('paywire', options, EVENT_DELIVERY_OPTION_NAMES, 'events.')
  const merged = { ...DEFAULTS, ...options }
  for (const [key, value] of Object.entries(merged)) {
    const minimum = AT_LEAST_ONE.has(key) ? 1 : 0
    if (!Number.isInteger(value) || value < minimum) throw new PAYWIRE_ERR_INVALID_OPTION(`events.${key}`, `must be a whole number, ${minimum} or more`)
  }
  return merged
}
