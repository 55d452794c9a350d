import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import type { PaymentState } from '../requests/payment-state.ts'
import { refuseUnknownOptions } from '../suggest.ts'

/** Why the sweeper looks at a payment. */
export type AttentionReason =
  | 'pending'
  | 'authorization_expiring'
  | 'refund_pending'
  | 'dispute_open'
  | 'provider_call_failed'

export interface AttentionOptions {
  /** A payment pending (or new with a buyer sent to the provider) this long gets a look. Default 15 min. */
  pendingAfterMs?: number
  /** An authorization gets a look (and payment.authorization_expiring) this long before it lapses. Default 24 h. */
  expiryWarningMs?: number
}

export interface Attention {
  at: string
  reason: AttentionReason
}

const MINUTE = 60_000
/** The thresholds attention is stored with (the sweeper's expiryWarningMs defaults to the same). */
export const ATTENTION_DEFAULTS: Readonly<Required<AttentionOptions>> = { pendingAfterMs: 15 * MINUTE, expiryWarningMs: 24 * 60 * MINUTE }

/**
 * When a payment as its gateway reads it next needs a look, and why: the earliest of its
 * reasons. Pure (no clock): the time is absolute, so it is stored once with the payment and
 * indexed; undefined when nothing about the payment can change without the shop acting.
 */
export function attentionOf (state: PaymentState, updatedAt: string, options: AttentionOptions = {}): Attention | undefined {
  // Run on every write of a payment, most of which have one reason or none: the thresholds
  // are merged only for the reason that reads them, the reasons sorted only when several.
  const candidates: Attention[] = []
  if (state.providerCallFailedAt !== undefined) candidates.push({ at: state.providerCallFailedAt, reason: 'provider_call_failed' })
  if ((state.refundsPending ?? 0) > 0) candidates.push({ at: updatedAt, reason: 'refund_pending' })
  if (state.disputes?.some((dispute) => dispute.state === 'open') === true) candidates.push({ at: updatedAt, reason: 'dispute_open' })
  if (state.status === 'pending') {
    const { pendingAfterMs } = { ...ATTENTION_DEFAULTS, ...options }
    candidates.push({ at: new Date(Date.parse(updatedAt) + pendingAfterMs).toISOString(), reason: 'pending' })
  }
  if (state.status === 'authorized' && state.authorizationExpiresAt !== undefined) {
    const { expiryWarningMs } = { ...ATTENTION_DEFAULTS, ...options }
    candidates.push({ at: new Date(Date.parse(state.authorizationExpiresAt) - expiryWarningMs).toISOString(), reason: 'authorization_expiring' })
  }
  if (candidates.length > 1) candidates.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
  return candidates[0]
}

export const ATTENTION_OPTION_NAMES: readonly string[] = Object.keys(ATTENTION_DEFAULTS)

/**
 * Checks the builder's `attention` option: whole milliseconds, each at least 1 ms, and no
 * misspelt name (pendingAfter → "did you mean pendingAfterMs?") left at its default unseen.
 */
export function attentionOptions (options: AttentionOptions = {}): Required<AttentionOptions> {
  refuseUnknownOptions('paywire', options, ATTENTION_OPTION_NAMES, 'attention.')
  const merged = { ...ATTENTION_DEFAULTS, ...options }
  for (const [key, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new PAYWIRE_ERR_INVALID_OPTION(`attention.${key}`, 'must be a whole number of milliseconds, 1 or more')
  }
  return merged
}
