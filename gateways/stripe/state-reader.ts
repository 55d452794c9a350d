import { PaymentStateReader, type PaymentState } from '../../plugins/core/engine/index.ts'
import type { StripeRecord } from './record.ts'
import { stripeAmounts, stripeDisputes, stripeStatus } from './status.ts'

/**
 * A Stripe payment's state from its stored Payment (`details`): the gateway's one statement of
 * its statuses, amounts and disputes, read for GetHumanStatus, done pages and payment events.
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
    return {
      status: stripeStatus(details),
      ...(amounts === undefined ? {} : { amounts }),
      providerIds,
      ...(disputes.length > 0 ? { disputes } : {})
    }
  }
}
