import { createHash } from 'node:crypto'
import { isErrorCode } from '../errors.ts'
import type { PaymentState } from '../requests/payment-state.ts'
import type { AttentionReason } from './attention.ts'
import type { AuthorizationExpiringEvent, MoneyMismatchEvent, ReconcileEvent, ReconciledPayment } from './events.ts'
import { reconcileOptions, type ReconcileOptions, type ResolvedReconcileOptions } from './options.ts'

/** A payment the storage says is due for a look (PaymentFacets, the fields the sweep uses). */
export interface ReconcileCandidate {
  id: string
  gatewayName: string
  /** ISO 8601: with attentionAt, what a deferral checks is still stored. */
  updatedAt: string
  attentionAt?: string
  attentionReason?: AttentionReason
  /** The sweeper's deferrals of this attention in a row: its back-off doubles with each. */
  attentionDeferrals?: number
}

/** What one Sync left: whether it changed the stored payment, and the payment as its gateway now reads it. */
export interface SyncOutcome {
  changed: boolean
  /** Undefined when the gateway reads no states. */
  state: PaymentState | undefined
  payment: ReconciledPayment & { totalAmount?: number, currencyCode?: string }
}

/** One instance's hold on the sweep. */
export interface SweepLease {
  /** False once it lapsed or another instance took it. */
  renew: (ttlMs: number) => Promise<boolean>
  release: () => Promise<void>
}

/** A key marked as done, kept across instances; forget() undoes it (the event it stood for was not stored). */
export interface Remembered {
  forget: () => Promise<void>
}

interface SweepLogger {
  debug: (objOrMsg: unknown, msg?: string) => void
  info: (objOrMsg: unknown, msg?: string) => void
  warn: (objOrMsg: unknown, msg?: string) => void
  error: (objOrMsg: unknown, msg?: string) => void
}

/**
 * What the sweeper works with, given by the central object (Paywire.reconcile): the storage's
 * due index, the gateways' Sync under the payment's claim, a lease on the backend, a memory of
 * raised events and the event outbox. Narrow, so the sweep's rules are tested on their own.
 */
export interface ReconcileParts {
  /** Throws a coded error when the Payment storage cannot find due payments (PaymentSearch). */
  check: () => void
  /** Payments whose attention is due at `now`, the longest due first, at most `limit` (PaymentSearch.attentionDue). */
  due: (now: Date, limit: number) => Promise<ReconcileCandidate[]>
  /** False when the payment's gateway is not registered or runs no Sync: nothing to ask its provider. */
  canSync: (gatewayName: string) => boolean
  /** Runs Sync on the payment as its only writer (its claim; PAYWIRE_ERR_PAYMENT_BUSY while another request holds it). */
  sync: (candidate: ReconcileCandidate) => Promise<SyncOutcome>
  /**
   * Moves the payment's attention to `until` (ISO 8601) in the storage, counting one more
   * deferral, unless it was written since it was read (PaymentSearch.deferAttention): false then.
   */
  defer: (candidate: ReconcileCandidate, until: string) => Promise<boolean>
  /** Takes the sweep for ttlMs, or null while another instance holds it. */
  lease: (ttlMs: number) => Promise<SweepLease | null>
  /** Marks `key` for ttlMs: null when it was marked already (by any instance). */
  remember: (key: string, ttlMs: number) => Promise<Remembered | null>
  /** Stores the event in the outbox, delivered like payment events. */
  emit: (event: ReconcileEvent) => Promise<void>
  logger: SweepLogger
  /** Waits between two Syncs (the rate limit); resolves early once the signal aborts. Default: a timer. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>
}

/** What one sweep did. */
export interface SweepReport {
  /** False when another instance held the sweep: this one did nothing. */
  leased: boolean
  /** Payments the storage gave as due. */
  due: number
  /** Syncs that ran. */
  synced: number
  /** Of those, the ones that changed the stored payment. */
  changed: number
  /** Syncs that failed (the provider down, a storage error): backed off. */
  failed: number
  /** Payments another request held: left to it. */
  busy: number
  /** Payments deferred in the storage: not due again until their back-off is over (or a write brings them back). */
  backedOff: number
  /** Due payments whose gateway is gone or runs no Sync: backed off to the longest wait. */
  unsupported: number
  /** payment.authorization_expiring events raised. */
  authorizationsExpiring: number
  /** money.mismatch events raised. */
  mismatches: number
}

const DAY_MS = 86_400_000
/** How long a raised mismatch is remembered: the same disagreement found again within it is not raised again. */
const MISMATCH_MEMORY_MS = 30 * DAY_MS

/** A stable event id (UUID-shaped) for what is raised once: a second raise is the same event to a deduplicating handler. */
function stableId (key: string): string {
  const hex = createHash('sha256').update(key).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

async function timerWait (ms: number, signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done (): void {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done)
  })
}

function emptyReport (leased: boolean): SweepReport {
  return { leased, due: 0, synced: 0, changed: 0, failed: 0, busy: 0, backedOff: 0, unsupported: 0, authorizationsExpiring: 0, mismatches: 0 }
}

/**
 * The reconciliation sweeper (Paywire.reconcile): finds the payments whose attention is due
 * (pending too long, an authorization nearing its expiry, refunds pending, disputes open, a
 * provider call that failed), and runs Sync on each as its only writer, so a webhook that never
 * came or a buyer who never returned cannot leave a payment as it was. One instance of a group
 * sweeps at a time (a lease on the backend), at most batchSize payments and perSecond Syncs a
 * second; a payment whose Sync changed nothing (or failed) waits backoffMs before its next
 * look, doubling up to backoffMaxMs: the storage keeps it (deferAttention moves the payment's
 * attentionAt and counts the deferrals), so backing-off payments never crowd out the due ones
 * and every instance knows them; a write to the payment brings its attention back by its own rule. After a Sync it raises payment.authorization_expiring
 * (once per authorization) and money.mismatch (once per disagreement).
 *
 * sweepOnce() is the whole sweep (for tests and operators); start() only calls it every
 * intervalMs.
 */
export class ReconcileSweeper {
  readonly #parts: ReconcileParts
  #options: ResolvedReconcileOptions
  #timer: NodeJS.Timeout | undefined
  #sweeping: Promise<SweepReport> | undefined
  #abort: AbortController | undefined

  constructor (parts: ReconcileParts, options?: ReconcileOptions) {
    this.#parts = parts
    this.#options = reconcileOptions(options)
  }

  get options (): Readonly<ResolvedReconcileOptions> {
    return this.#options
  }

  /** Replaces the options (validated: PAYWIRE_ERR_INVALID_OPTION); an interval running takes the new one at its next start(). */
  configure (options: ReconcileOptions): this {
    this.#options = reconcileOptions(options)
    return this
  }

  /** Sweeping every intervalMs. */
  get running (): boolean {
    return this.#timer !== undefined
  }

  /**
   * Sweeps every intervalMs until stop(); throws (a coded error) when the Payment storage cannot
   * find due payments. A sweep that fails is logged and the next one tries again.
   */
  start (): void {
    this.#parts.check()
    if (this.#timer !== undefined) return
    this.#timer = setInterval(() => {
      this.sweepOnce().catch((error: unknown) => {
        this.#parts.logger.error({ err: error }, 'paywire: a reconciliation sweep failed; the next one tries again')
      })
    }, this.#options.intervalMs)
    // The sweeper alone must not keep a process alive.
    this.#timer.unref()
  }

  /** Stops the interval and ends a sweep in progress after its current Sync. */
  async stop (): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    this.#abort?.abort()
    await this.#sweeping?.catch(() => {})
  }

  /** One sweep now (or the one in progress); resolves to what it did. */
  async sweepOnce (): Promise<SweepReport> {
    this.#sweeping ??= this.#sweep().finally(() => { this.#sweeping = undefined })
    return await this.#sweeping
  }

  async #sweep (): Promise<SweepReport> {
    const { leaseMs } = this.#options
    const lease = await this.#parts.lease(leaseMs)
    if (lease === null) return emptyReport(false)
    const abort = this.#abort = new AbortController()
    const renewal = setInterval(() => {
      // A renewal that finds the lease gone ends the sweep after the current Sync; a failed one is tried again.
      lease.renew(leaseMs).then((held) => { if (!held) abort.abort() }, () => {})
    }, Math.max(1, Math.floor(leaseMs / 3)))
    renewal.unref()
    try {
      return await this.#run(abort.signal)
    } finally {
      clearInterval(renewal)
      await lease.release().catch(() => {})
    }
  }

  async #run (signal: AbortSignal): Promise<SweepReport> {
    const { batchSize, perSecond, backoffMaxMs } = this.#options
    const report = emptyReport(true)
    const now = this.#options.now()
    const candidates = await this.#parts.due(new Date(now), batchSize)
    report.due = candidates.length
    const started = performance.now()
    for (const candidate of candidates) {
      if (report.synced + report.failed + report.busy >= batchSize || signal.aborted) break
      if (!this.#parts.canSync(candidate.gatewayName)) {
        report.unsupported++
        await this.#backOff(candidate, now, report, backoffMaxMs)
        continue
      }
      // The n-th Sync starts no earlier than n / perSecond seconds into the sweep.
      const looked = report.synced + report.failed + report.busy
      const delay = started + looked * 1000 / perSecond - performance.now()
      if (looked > 0 && delay > 0) await (this.#parts.wait ?? timerWait)(delay, signal)
      if (signal.aborted) break
      await this.#look(candidate, report)
    }
    if (report.synced + report.failed > 0) this.#parts.logger.info({ paywire: { reconcile: report } }, 'paywire: reconciliation sweep done')
    return report
  }

  async #look (candidate: ReconcileCandidate, report: SweepReport): Promise<void> {
    const where = { paywire: { gateway: candidate.gatewayName, payment: candidate.id, reason: candidate.attentionReason } }
    let outcome: SyncOutcome
    try {
      outcome = await this.#parts.sync(candidate)
    } catch (error) {
      if (isErrorCode(error, 'PAYWIRE_ERR_PAYMENT_BUSY')) {
        // Another request is on it now (a buyer, a webhook, another Sync): what it finds is stored.
        report.busy++
        return
      }
      report.failed++
      await this.#backOff(candidate, this.#options.now(), report)
      this.#parts.logger.warn({ ...where, err: error }, 'paywire: the reconciliation sweep could not Sync a payment; it is looked at again later')
      return
    }
    report.synced++
    const now = this.#options.now()
    // A change was written: its facets carry the attention its rule gives, and no deferrals.
    if (outcome.changed) report.changed++
    else await this.#backOff(candidate, now, report)
    try {
      await this.#raise(candidate, outcome, now, report)
    } catch (error) {
      this.#parts.logger.error({ ...where, err: error }, 'paywire: the reconciliation sweep could not store an event; it is raised at the payment\'s next look')
    }
  }

  /**
   * Defers the payment's next look by backoffMs (or `atLeast`), doubled for each deferral in a
   * row the storage counted, up to backoffMaxMs. Not deferred (written since it was read, or the
   * storage failed): it stays due and the next sweep looks again.
   */
  async #backOff (candidate: ReconcileCandidate, now: number, report: SweepReport, atLeast = 0): Promise<void> {
    const { backoffMs, backoffMaxMs } = this.#options
    const delayMs = Math.max(atLeast, Math.min(backoffMs * 2 ** (candidate.attentionDeferrals ?? 0), backoffMaxMs))
    try {
      if (await this.#parts.defer(candidate, new Date(now + delayMs).toISOString())) report.backedOff++
    } catch (error) {
      this.#parts.logger.warn({ paywire: { gateway: candidate.gatewayName, payment: candidate.id }, err: error },
        'paywire: the reconciliation sweep could not defer a payment; it is looked at again at the next sweep')
    }
  }

  async #raise (candidate: ReconcileCandidate, outcome: SyncOutcome, now: number, report: SweepReport): Promise<void> {
    const { state, payment } = outcome
    if (state === undefined) return
    const { totalAmount: total, currencyCode: currency, ...named } = payment
    const common = {
      occurredAt: new Date(now).toISOString(),
      gateway: candidate.gatewayName,
      payment: named,
      amounts: { ...(total === undefined ? {} : { total }), ...(currency === undefined ? {} : { currency }) },
      providerIds: { ...state.providerIds }
    }
    const expiresAt = state.authorizationExpiresAt
    if (state.status === 'authorized' && expiresAt !== undefined && Date.parse(expiresAt) - this.#options.expiryWarningMs <= now) {
      const key = `authorization_expiring:${payment.model}:${payment.id}:${expiresAt}`
      const event: AuthorizationExpiringEvent = { id: stableId(key), type: 'payment.authorization_expiring', ...common, status: state.status, expiresAt }
      if (await this.#once(key, Math.max(Date.parse(expiresAt) - now, 0) + DAY_MS, event)) report.authorizationsExpiring++
    }
    if (state.providerView !== undefined) {
      const paywire = { status: state.status, ...(state.amounts === undefined ? {} : { amounts: state.amounts }) }
      const key = `money.mismatch:${payment.model}:${payment.id}:${JSON.stringify([paywire, state.providerView])}`
      const event: MoneyMismatchEvent = { id: stableId(key), type: 'money.mismatch', ...common, paywire, provider: { ...state.providerView } }
      if (await this.#once(key, MISMATCH_MEMORY_MS, event)) report.mismatches++
    }
  }

  /** Emits the event unless its key was marked already; the mark is undone when the event could not be stored. */
  async #once (key: string, ttlMs: number, event: ReconcileEvent): Promise<boolean> {
    const mark = await this.#parts.remember(stableId(key), ttlMs)
    if (mark === null) return false
    try {
      await this.#parts.emit(event)
    } catch (error) {
      await mark.forget().catch(() => {})
      throw error
    }
    return true
  }
}
