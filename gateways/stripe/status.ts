import { HumanStatus, type HumanStatusValue, type PaymentAmounts, type PaymentDispute } from '../../plugins/core/engine/index.ts'
import { fromStripeAmount } from './money.ts'
import type { StripeRecord } from './record.ts'

/*
 * The stripe gateway's one status table (gateways/stripe/README.md, "Statuses"), from the
 * PaymentIntent's status (https://docs.stripe.com/payments/paymentintents/lifecycle), its
 * Checkout Session, its refunds and its disputes as last read from Stripe.
 */

/** Ends the shop reached on its own: the buyer went back, the shop canceled, Stripe refused the session for good. */
export type LocalEnd = 'canceled' | 'failed' | 'expired'

const LOCAL_ENDS: Record<LocalEnd, HumanStatusValue> = { canceled: HumanStatus.CANCELED, failed: HumanStatus.FAILED, expired: HumanStatus.EXPIRED }
/** Statuses that say money moved: Stripe's word for them wins over a local end. */
const MONEY_MOVED: ReadonlySet<HumanStatusValue> = new Set([HumanStatus.AUTHORIZED, HumanStatus.CAPTURED, HumanStatus.REFUNDED, HumanStatus.SUSPENDED])
/** Cancellations Stripe made because time ran out (an uncaptured authorization, https://docs.stripe.com/api/payment_intents/object#payment_intent_object-cancellation_reason). */
const EXPIRY_REASONS: ReadonlySet<string> = new Set(['automatic', 'expired'])
const AWAITING_BUYER: ReadonlySet<string> = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action'])

/**
 * A dispute's state for Paywire (https://docs.stripe.com/api/disputes/object#dispute_object-status):
 * closed `won`, an inquiry closed without a chargeback (`warning_closed`) or a `prevented` one keep
 * the money; `lost` takes it; every other status is open.
 */
export function disputeState (status: unknown): PaymentDispute['state'] {
  if (status === 'lost') return 'lost'
  return status === 'won' || status === 'warning_closed' || status === 'prevented' ? 'won' : 'open'
}

function entries (value: unknown): StripeRecord[] {
  return Array.isArray(value) ? value as StripeRecord[] : []
}

function minor (record: StripeRecord, amount: unknown): number {
  return typeof amount === 'number' && typeof record.currency === 'string' ? fromStripeAmount(amount, record.currency) : 0
}

export function stripeDisputes (record: StripeRecord): PaymentDispute[] {
  return entries(record.disputes).map((dispute) => ({
    id: String(dispute.id),
    state: disputeState(dispute.status),
    amount: minor(record, dispute.amount),
    ...(typeof dispute.reason === 'string' ? { reason: dispute.reason } : {})
  }))
}

/**
 * In Paywire's minor units: what the PaymentIntent received (a partial capture's amount), the
 * refunds Stripe says succeeded (pending, failed and canceled ones move nothing) and the
 * disputes lost. Undefined while nothing was received.
 */
export function stripeAmounts (record: StripeRecord): PaymentAmounts | undefined {
  const captured = minor(record, record.amount_received)
  if (typeof record.id !== 'string' || (captured === 0 && record.status !== 'succeeded')) return undefined
  const refunded = entries(record.refunds).filter((refund) => refund.status === 'succeeded').reduce((sum, refund) => sum + minor(record, refund.amount), 0)
  const reversed = entries(record.disputes).filter((dispute) => disputeState(dispute.status) === 'lost').reduce((sum, dispute) => sum + minor(record, dispute.amount), 0)
  return { captured, refunded, reversed }
}

/** What Stripe's objects say, whatever the shop ended on its own. */
export function providerStatus (record: StripeRecord): HumanStatusValue {
  const session = record.checkout_session as StripeRecord | undefined
  if (typeof record.id !== 'string') {
    if (session === undefined) return HumanStatus.NEW
    return session.status === 'expired' ? HumanStatus.EXPIRED : HumanStatus.PENDING
  }
  const status = record.status as string
  if (status === 'succeeded') {
    if (stripeDisputes(record).some((dispute) => dispute.state === 'open')) return HumanStatus.SUSPENDED
    const amounts = stripeAmounts(record) as PaymentAmounts
    return amounts.refunded + amounts.reversed > 0 ? HumanStatus.REFUNDED : HumanStatus.CAPTURED
  }
  if (status === 'requires_capture') return HumanStatus.AUTHORIZED
  if (status === 'processing') return HumanStatus.PENDING
  if (status === 'canceled') return EXPIRY_REASONS.has(record.cancellation_reason) ? HumanStatus.EXPIRED : HumanStatus.CANCELED
  if (!AWAITING_BUYER.has(status)) return HumanStatus.UNKNOWN
  // The buyer may still pay (another card, a challenge) while the Checkout Session is open.
  if (session?.status === 'open') return HumanStatus.PENDING
  const failed = record.last_payment_error !== null && record.last_payment_error !== undefined
  if (session === undefined) return failed ? HumanStatus.FAILED : HumanStatus.PENDING
  return failed ? HumanStatus.FAILED : HumanStatus.EXPIRED
}

/** The payment's status: Stripe's, unless the shop ended it on its own and Stripe says no money moved. */
export function stripeStatus (record: StripeRecord): HumanStatusValue {
  const provider = providerStatus(record)
  const local = LOCAL_ENDS[record.paywire_state as LocalEnd]
  return local !== undefined && !MONEY_MOVED.has(provider) ? local : provider
}

/** Whether Stripe's view says money moved (authorized, captured, refunded, disputed). */
export function moneyMoved (status: HumanStatusValue): boolean {
  return MONEY_MOVED.has(status)
}
