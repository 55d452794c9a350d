import { Authorize, Capture, HumanStatus } from '../../../plugins/core/engine/index.ts'
import { PAYWIRE_ERR_STRIPE_CAPTURE_AMOUNT_EXCEEDED, codedError, isRefusal, paywireError } from '../errors.ts'
import { fromStripeAmount, toStripeAmount } from '../money.ts'
import { closeKey, intentView, recordOf, type StripeRecord } from '../record.ts'
import { stripeStatus } from '../status.ts'
import { CheckoutFlowAction } from './checkout-flow.ts'

const CAPTURED: ReadonlySet<string> = new Set([HumanStatus.CAPTURED, HumanStatus.REFUNDED, HumanStatus.SUSPENDED])

/**
 * Capture: the buyer's journey through Checkout for a new payment (see CheckoutFlowAction), or,
 * for an authorized one, the capture of its PaymentIntent: all of it, or `request.amount`
 * (minor units; Stripe releases the rest). Anything else is left alone: a buyer reloading the
 * return URL never pays twice.
 */
export class CaptureAction extends CheckoutFlowAction {
  supports (request: unknown): boolean {
    return request instanceof Capture && recordOf(request.model) !== undefined
  }

  async execute (request: Capture): Promise<void> {
    const record = recordOf(request.model) as StripeRecord
    const status = stripeStatus(record)
    if (status === HumanStatus.AUTHORIZED) return await this.#captureAuthorized(record, request.amount)
    if (status === HumanStatus.NEW || status === HumanStatus.PENDING) await this.journey(record, request)
  }

  async #captureAuthorized (record: StripeRecord, amount: number | undefined): Promise<void> {
    const wanted = amount === undefined ? null : toStripeAmount(amount, record.currency)
    if (wanted !== null && wanted > record.amount_capturable) {
      throw new PAYWIRE_ERR_STRIPE_CAPTURE_AMOUNT_EXCEEDED(amount as number, fromStripeAmount(record.amount_capturable, record.currency))
    }
    // A capture whose answer was lost is sent again as it was; one of another amount first asks Stripe whether it happened.
    if (record.paywire_idempotency?.capture !== undefined && record.paywire_capture_amount !== wanted) {
      await this.reads.sync(record, 'capture')
      if (stripeStatus(record) !== HumanStatus.AUTHORIZED) return
      closeKey(record, 'capture')
    }
    record.paywire_capture_amount = wanted
    try {
      const intent = await this.call(record, 'capture', async (key) => await this.api.capturePaymentIntent(record.id, wanted ?? undefined, key))
      this.views.take(record, intentView(intent), 'capture')
    } catch (error) {
      if (!isRefusal(error)) throw paywireError(error)
      // Refused: Stripe's PaymentIntent says why. Captured by an earlier call whose answer was lost: done.
      await this.reads.sync(record, 'capture')
      if (!CAPTURED.has(stripeStatus(record))) throw codedError(error)
    } finally {
      if (record.paywire_idempotency?.capture === undefined) delete record.paywire_capture_amount
    }
  }
}

/** Authorize: the buyer's journey with `capture_method=manual`; capture (all or part) or cancel later. */
export class AuthorizeAction extends CheckoutFlowAction {
  supports (request: unknown): boolean {
    return request instanceof Authorize && recordOf(request.model) !== undefined
  }

  async execute (request: Authorize): Promise<void> {
    const record = recordOf(request.model) as StripeRecord
    const status = stripeStatus(record)
    if (status !== HumanStatus.NEW && status !== HumanStatus.PENDING) return
    if (record.checkout_session === undefined) record.capture_method = 'manual'
    await this.journey(record, request)
  }
}
