import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import { refuseUnknownOptions } from '../suggest.ts'
import { ATTENTION_DEFAULTS } from './attention.ts'

export interface ReconcileOptions {
  /** How often a sweep starts (ms). Default 60000. */
  intervalMs?: number
  /** Payments one sweep Syncs at most (up to 500, the storage's largest page of due payments). Default 100. */
  batchSize?: number
  /** Syncs per second at most, so a sweep never floods a provider (its rate limits are the shop's). Default 5. */
  perSecond?: number
  /** A payment whose Sync changed nothing, or failed, is looked at again this much later (ms), doubling each time. Default 300000 (5 minutes). */
  backoffMs?: number
  /** The longest such wait (ms). Default 21600000 (6 hours). */
  backoffMaxMs?: number
  /**
   * How long one instance holds the sweep unless it renews it (ms): renewed every third of it
   * while it sweeps, it bounds how long a dead instance keeps the others from sweeping. Default 60000.
   */
  leaseMs?: number
  /**
   * How long before an authorization lapses `payment.authorization_expiring` is raised (ms).
   * Default 86400000 (24 hours), the time the stored attention is computed with.
   */
  expiryWarningMs?: number
  /** The clock (ms since the epoch) the sweep judges what is due by; tests give a simulated one. Default Date.now. */
  now?: () => number
}

export type ResolvedReconcileOptions = Required<ReconcileOptions>

const DEFAULTS: Omit<ResolvedReconcileOptions, 'now'> = {
  intervalMs: 60_000,
  batchSize: 100,
  perSecond: 5,
  backoffMs: 300_000,
  backoffMaxMs: 21_600_000,
  leaseMs: 60_000,
  expiryWarningMs: ATTENTION_DEFAULTS.expiryWarningMs
}

/** attentionDue()'s largest page (the storage's MAX_PAGE_SIZE). */
const BATCH_MAX = 500

export const RECONCILE_OPTION_NAMES: readonly string[] = [...Object.keys(DEFAULTS), 'now']

/**
 * The sweeper's options with their defaults; throws PAYWIRE_ERR_INVALID_OPTION naming the first
 * wrong one (a misspelt name gets "did you mean").
 */
export function reconcileOptions (options: ReconcileOptions = {}): ResolvedReconcileOptions {
  refuseUnknownOptions('paywire', options, RECONCILE_OPTION_NAMES, 'reconcile.')
  const { now, ...numbers } = options
  const merged = { ...DEFAULTS, ...numbers }
  for (const [key, value] of Object.entries(merged)) {
    // A zero would mean "spin" (an interval, a rate) or "never" (a batch): whole numbers from 1.
    if (!Number.isInteger(value) || value < 1) throw new PAYWIRE_ERR_INVALID_OPTION(`reconcile.${key}`, 'must be a whole number, 1 or more')
  }
  if (merged.batchSize > BATCH_MAX) throw new PAYWIRE_ERR_INVALID_OPTION('reconcile.batchSize', `must be at most ${BATCH_MAX}`)
  if (merged.backoffMaxMs < merged.backoffMs) throw new PAYWIRE_ERR_INVALID_OPTION('reconcile.backoffMaxMs', `must be at least backoffMs (${merged.backoffMs})`)
  if (now !== undefined && typeof now !== 'function') throw new PAYWIRE_ERR_INVALID_OPTION('reconcile.now', 'must be a function returning ms since the epoch')
  return { ...merged, now: now ?? Date.now }
}
