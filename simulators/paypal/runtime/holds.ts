import type { HeldRequests, HoldFailStatus } from './types.ts'

export type HoldVerdict = { kind: 'release' } | { kind: 'fail', status: HoldFailStatus } | { kind: 'reset' }

export interface Hold {
  readonly handle: HeldRequests
  /** A matching request is held: resolves with how it ends, at once when the test already decided. */
  arrive: () => Promise<HoldVerdict>
  /** The simulator is closing: held requests go on, and so do those still to come. */
  close: () => void
  /** The simulator has closed: `reached` rejects unless every request it waited for came. */
  abandon: () => void
}

const FAIL_STATUSES: ReadonlySet<number> = new Set([429, 500, 503])

/**
 * A barrier for `times` matching requests. The test's verdict (release, fail, reset) applies to the
 * requests held now and to those it catches later, so deciding before the requests arrive is
 * allowed and deterministic.
 */
export function createHold (times: number): Hold {
  let verdict: HoldVerdict | undefined
  let closed = false
  let arrived = 0
  let waiting: Array<(verdict: HoldVerdict) => void> = []
  const settle = {} as { resolve: () => void, reject: (error: Error) => void }
  const reached = new Promise<void>((resolve, reject) => Object.assign(settle, { resolve, reject }))
  // Tests that never wait for `reached` must not see an unhandled rejection when the simulator closes.
  reached.catch(() => undefined)

  function end (next: HoldVerdict): void {
    if (verdict !== undefined) throw new Error(`PayPal simulator: this hold already ended with ${verdict.kind}()`)
    verdict = next
    const held = waiting
    waiting = []
    for (const resolve of held) resolve(next)
  }

  const handle: HeldRequests = {
    reached,
    get arrived () {
      return arrived
    },
    release: () => end({ kind: 'release' }),
    fail (status = 500) {
      if (!FAIL_STATUSES.has(status)) throw new TypeError(`A held request fails with 429, 500 or 503, got ${String(status)}`)
      end({ kind: 'fail', status })
    },
    reset: () => end({ kind: 'reset' })
  }

  return {
    handle,
    async arrive () {
      arrived++
      if (arrived === times) settle.resolve()
      if (verdict !== undefined) return verdict
      if (closed) return { kind: 'release' }
      return await new Promise<HoldVerdict>((resolve) => waiting.push(resolve))
    },
    close () {
      closed = true
      const held = waiting
      waiting = []
      for (const resolve of held) resolve({ kind: 'release' })
    },
    abandon () {
      if (arrived < times) settle.reject(new Error('PayPal simulator closed before the held requests arrived'))
    }
  }
}
