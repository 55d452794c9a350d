import { PaymentStateReader, type PaymentState } from '../../plugins/core/engine/index.ts'
import type { StripeRecord } from './record.ts'
import { stripeAmounts, stripeDisputes, stripeStatus } from './status.ts'

/**
 * How long an uncaptured card authorization holds by default when Stripe's charge does not say
 * (`capture_before`): 7 days for online card payments
 * (https://docs.stripe.com/payments/place-a-hold-on-a-payment-method).
 */
const AUTHORIZATION_VALID_S = 7 * 24 * 60 * 60
/** Refund statuses that are not an end yet (https://docs.stripe.com/api/refunds/object#refund_object-status). */
const REFUND_UNSETTLED: ReadonlySet<string> = new Set(['pending', 'requires_action'])

function entries (value: unknown): StripeRecord[] {
  return Array.isArray(value) ? value as StripeRecord[] : []
}

/** When a PaymentIntent waiting for its capture lapses: the charge's capture_before, else 7 days after its creation. */
function authorizationExpiry (details: StripeRecord): string | undefined {
  const seconds = typeof details.latest_charge?.capture_before === 'number'
    ? details.latest_charge.capture_before as number
    : typeof details.created === 'number' ? details.created as number + AUTHORIZATION_VALID_S : undefined
  return seconds === undefined ? undefined : new Date(seconds * 1000).toISOString()
}

/**
 * A Stripe payment's state from its stored Payment (`details`): the gateway's one statement of
 * its statuses, amounts and disputes, read for GetHumanStatus, done pages and payment events,
 * and what the reconciliation sweeper picks payments by (authorization expiry, pending refunds:
 * Stripe's unsettled ones and Paywire's intents whose answer was lost).
 */
export class StripeStateReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState | undefined {
    const details = record.details as StripeRecord | undefined
    if (typeof details !== 'object' || details === null) return undefined
    const providerIds: Record<string, string> = {}
    if (typeof details.id === 'string') providerIds.payment_intent = details.id
    if (typeof details.checkout_session?.id === 'string') providerIds.checkout_session = details.checkout_session.id
    if (typeof details.latest_charge?.id === 'string') providerIds.charge = details.latest_charge.id
    const refund = Array.isArray(details.refunds) ? details.refunds.at(-1) : undefined
    if (typeof refund?.id === 'string') providerIds.refund = refund.id
    const disputes = stripeDisputes(details)
    if (disputes.length > 0) providerIds.dispute = (disputes.at(-1) as { id: string }).id
    const amounts = stripeAmounts(details)
    const status = stripeStatus(details)
    const expiresAt = status === 'authorized' ? authorizationExpiry(details) : undefined
    const refundsPending = entries(details.refunds).filter((entry) => REFUND_UNSETTLED.has(entry.status)).length +
      entries(details.paywire_refunds).filter((intent) => intent.state === 'sent').length
    return {
      status,
      ...(amounts === undefined ? {} : { amounts }),
      providerIds,
      ...(disputes.length > 0 ? { disputes } : {}),
      ...(expiresAt === undefined ? {} : { authorizationExpiresAt: expiresAt }),
      ...(refundsPending > 0 ? { refundsPending } : {}),
      ...(typeof details.paywire_provider_view?.status === 'string' ? { providerView: details.paywire_provider_view } : {})
    }
  }
}
