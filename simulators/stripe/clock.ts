/**
 * The simulator's clock: real time (or an injected `now`) plus an offset that `advance(ms)` moves
 * forward, so 24-hour sessions, 7-day authorizations and 24-hour idempotency keys expire in tests
 * without waiting. Listeners run after every advance (expiry sweeps, due webhook retries).
 */
export interface SimulatedClock {
  /** Epoch milliseconds. */
  now: () => number
  /** Unix seconds, as Stripe's `created` fields (https://docs.stripe.com/api/payment_intents/object). */
  unix: () => number
  advance: (ms: number) => void
  onAdvance: (listener: () => void) => void
}

export function createClock (source: () => number = Date.now): SimulatedClock {
  let offset = 0
  const listeners: Array<() => void> = []
  const now = (): number => source() + offset
  return {
    now,
    unix: () => Math.floor(now() / 1000),
    advance (ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`advance(ms) takes a non-negative number of milliseconds, got ${ms}`)
      offset += ms
      for (const listener of listeners) listener()
    },
    onAdvance (listener) {
      listeners.push(listener)
    }
  }
}
