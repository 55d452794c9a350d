import type Stripe from 'stripe'
import { Checkpoint, HumanStatus, Refund, errorCodes } from '../../../plugins/core/engine/index.ts'
import { codedError, isOutcomeUnknown, recordedError } from '../errors.ts'
import { fromStripeAmount, toStripeAmount } from '../money.ts'
import type { RefundIntent } from '../reads.ts'
import { nextRefundKey, recordOf, refundView, type StripeRecord } from '../record.ts'
import { stripeStatus } from '../status.ts'
import { paywireMetadata } from './checkout-flow.ts'
import { StripeAction } from './stripe-action.ts'

/** Refund statuses that hold money back from another refund (https://docs.stripe.com/api/refunds/object#refund_object-status). */
const HOLDING: ReadonlySet<string> = new Set(['pending', 'requires_action', 'succeeded'])
const REFUNDABLE: ReadonlySet<string> = new Set([HumanStatus.CAPTURED, HumanStatus.REFUNDED, HumanStatus.SUSPENDED])

/**
 * Refunds a captured payment, all that remains or `request.amount` (minor units), as many
 * times as money remains. Each refund is an intent first (its own key
 * `<payment>:refund:<n>`, also in the refund's metadata, and its amount), committed before
 * Stripe is called. An intent whose answer was lost is settled before anything else: looked for
 * among Stripe's refunds by that key, else sent again with it; the caller's retry of that same
 * refund (the same amount) is then answered by it, so no retry refunds twice. The
 * amount counts as refunded once Stripe says the refund `succeeded` (a webhook or Sync tells a
 * pending one's end); a failed or canceled refund moves nothing.
 */
export class RefundAction extends StripeAction {
  supports (request: unknown): boolean {
    return request instanceof Refund && recordOf(request.model) !== undefined
  }

  async execute (request: Refund): Promise<void> {
    const record = recordOf(request.model) as StripeRecord
    const intents = (record.paywire_refunds ??= []) as RefundIntent[]
    const requested = request.amount ?? null
    const open = intents.find((intent) => intent.state === 'sent')
    if (open !== undefined) {
      await this.reads.sync(record, 'refund')
      if (open.state === 'sent') await this.#send(record, open)
      open.unreported = true
    }
    // The retry of a refund whose caller never heard it was made: answered by that refund, never made twice.
    const retried = intents.find((intent) => intent.unreported === true && intent.requested === requested)
    for (const intent of intents) delete intent.unreported
    if (retried !== undefined) return
    const status = stripeStatus(record)
    if (!REFUNDABLE.has(status) || typeof record.id !== 'string') throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', status)
    const held = ((record.refunds ?? []) as StripeRecord[]).filter((refund) => HOLDING.has(refund.status)).reduce((sum, refund) => sum + (refund.amount as number), 0)
    const remaining = (record.amount_received as number) - held
    const amount = request.amount === undefined ? remaining : toStripeAmount(request.amount, record.currency)
    if (remaining <= 0) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', `${status} (nothing left to refund)`)
    if (amount > remaining || amount < 1) throw new errorCodes.PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED(request.amount ?? 0, fromStripeAmount(remaining, record.currency))
    const intent: RefundIntent = { key: nextRefundKey(record), requested, amount, state: 'sent' }
    intents.push(intent)
    await this.gateway.execute(new Checkpoint())
    await this.#send(record, intent)
  }

  /** Made: the refund is on record. Refused: marked so, thrown. Unknown: stays `sent`, thrown (502): the retry settles it. */
  async #send (record: StripeRecord, intent: RefundIntent): Promise<void> {
    const params: Stripe.RefundCreateParams = {
      payment_intent: record.id,
      amount: intent.amount,
      metadata: { ...paywireMetadata(record), paywire_refund_key: intent.key }
    }
    let refund: Stripe.Refund
    try {
      refund = await this.api.createRefund(params, intent.key)
    } catch (error) {
      // The SDK rejects with its own error classes only (a lost connection is StripeConnectionError).
      const failure = error as Stripe.errors.StripeError
      record.error = recordedError(failure)
      if (!isOutcomeUnknown(failure)) {
        intent.state = 'refused'
        intent.error = record.error
      }
      throw codedError(failure)
    }
    delete record.error
    intent.state = 'made'
    intent.id = refund.id
    this.views.take(record, { refunds: [refundView(refund)] }, 'refund')
  }
}
