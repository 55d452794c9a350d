import { HUMAN_STATUSES, type HumanStatusValue } from '../requests/get-status.ts'

/** Which statuses may follow each status (staying put is always allowed). */
export type TransitionTable = Readonly<Record<HumanStatusValue, readonly HumanStatusValue[]>>

const ANY_KNOWN = HUMAN_STATUSES.filter((status) => status !== 'new' && status !== 'unknown')

/**
 * Statuses only move forward. A payment is never un-captured, a canceled, expired or failed
 * one never becomes pending again, and nothing known becomes "unknown". A reversal
 * (chargeback) or a refund moves a captured payment to refunded; a dispute may suspend it
 * and end either way.
 */
export const FORWARD_TRANSITIONS: TransitionTable = {
  new: [...ANY_KNOWN, 'unknown'],
  unknown: ANY_KNOWN,
  pending: ['authorized', 'captured', 'refunded', 'payedout', 'failed', 'canceled', 'expired', 'suspended'],
  authorized: ['captured', 'refunded', 'canceled', 'expired', 'failed'],
  captured: ['refunded', 'suspended'],
  suspended: ['captured', 'refunded'],
  // A partly refunded payment can still be disputed; the dispute's end reads refunded again.
  refunded: ['suspended'],
  payedout: [],
  failed: [],
  canceled: [],
  expired: []
}

/** Statuses that say money moved: a provider's word for them wins over a local end (see decide()). */
const MONEY_MOVED: ReadonlySet<HumanStatusValue> = new Set(['authorized', 'captured', 'refunded', 'payedout', 'suspended'])
/** Ends a shop reaches on its own (a cancel, an expiry, a refusal) that the provider may still overrule. */
const LOCAL_ENDS: ReadonlySet<HumanStatusValue> = new Set(['canceled', 'expired', 'failed'])

/**
 * What to do with a provider's view of a payment: `apply` it (a forward move), `overrule`
 * (it says money moved after the shop had ended the payment: the provider is right, and
 * the shop must hear of it), or `keep` the stored status (a stale, duplicate or
 * out-of-order view).
 */
export type TransitionDecision = 'apply' | 'overrule' | 'keep'

/**
 * One table per gateway says which status may follow which; Sync, webhooks and actions all
 * decide through it before they take a provider's view. Gateway factories register theirs
 * as the container service StatusTransitions.
 */
export class StatusTransitions {
  readonly table: TransitionTable

  constructor (table: TransitionTable = FORWARD_TRANSITIONS) {
    this.table = table
  }

  allows (from: HumanStatusValue, to: HumanStatusValue): boolean {
    return from === to || this.table[from].includes(to)
  }

  decide (from: HumanStatusValue, to: HumanStatusValue): TransitionDecision {
    if (this.allows(from, to)) return 'apply'
    return LOCAL_ENDS.has(from) && MONEY_MOVED.has(to) ? 'overrule' : 'keep'
  }
}
