import { Checkpoint, GatewayAwareAction, Refund, errorCodes } from '../../../plugins/core/engine/index.ts'
import { toPaypalAmount, type PaypalResource } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { codedError, isFinalRefusal, isPaypalCallError, recordedError } from '../errors.ts'
import { capturesOf, paypalStatus, recordOf, uniqueRequestId, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'

/** One refund as Paywire keeps it in `details.paywire_refunds`. */
export interface CheckoutRefundEntry {
  /** Its own PayPal-Request-Id: unique per refund, never reused for another one. */
  requestId: string
  captureId: string
  /** What was asked, in minor units; null: what remained of the capture. */
  requested: number | null
  currency: string
  /** `pending`: recorded, PayPal's answer not known yet; `completed`: PayPal made it; `refused`: PayPal said no. */
  state: 'pending' | 'completed' | 'refused'
  id?: string
  amount?: { value: string, currency_code: string }
  error?: Record<string, unknown>
}

function bodyOf (entry: CheckoutRefundEntry): PaypalResource {
  return entry.requested === null ? {} : { amount: { value: toPaypalAmount(entry.requested, entry.currency), currency_code: entry.currency } }
}

/** The capture a refund goes to: the first one that still has money to give back. */
function refundableCapture (record: CheckoutRecord): Record<string, any> | undefined {
  return capturesOf(record).find((capture) => capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED')
}

/**
 * Refunds the payment's capture, fully or by an amount in minor units, as paypal_rest does: the
 * refund is recorded as an intent (its own request id, the amount, `pending`) and stored (a
 * Checkpoint) before PayPal is called. An intent whose answer was lost is settled first with its
 * own id on the next Refund (PayPal replays it or makes it now), so retrying never refunds twice.
 */
export class RefundAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalCheckoutApi
  readonly views: CheckoutViews

  constructor (api: PaypalCheckoutApi, views: CheckoutViews) {
    super()
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return request instanceof Refund && recordOf(request.model) !== undefined
  }

  async execute (request: Refund): Promise<void> {
    const record = recordOf(request.model) as CheckoutRecord
    const entries = (record.paywire_refunds ??= []) as CheckoutRefundEntry[]
    const pending = entries.find((entry) => entry.state === 'pending')
    if (pending !== undefined) {
      const refusal = await this.#settle(record, pending)
      await this.#refresh(record)
      if (pending.requested === (request.amount ?? null)) {
        if (refusal !== undefined) throw refusal
        return
      }
    }
    const capture = refundableCapture(record)
    if (capture === undefined) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', paypalStatus(record))
    const entry: CheckoutRefundEntry = {
      requestId: uniqueRequestId(record, 'refund'),
      captureId: capture.id,
      requested: request.amount ?? null,
      currency: capture.amount.currency_code,
      state: 'pending'
    }
    // An amount PayPal cannot take (a fraction of HUF) is refused before anything is recorded.
    bodyOf(entry)
    entries.push(entry)
    await this.gateway.execute(new Checkpoint())
    const refusal = await this.#settle(record, entry)
    if (refusal !== undefined) throw refusal
    await this.#refresh(record)
  }

  /** Completed: undefined. Refused for good: marked refused, the coded error returned. Unknown: stays pending, thrown. */
  async #settle (record: CheckoutRecord, entry: CheckoutRefundEntry): Promise<Error | undefined> {
    try {
      const refund = await this.api.refundCapture(entry.captureId, bodyOf(entry), entry.requestId)
      Object.assign(entry, { state: 'completed', id: refund.id, amount: refund.amount })
      delete record.error
      return undefined
    } catch (error) {
      if (!isPaypalCallError(error)) throw error
      record.error = recordedError(error)
      if (!isFinalRefusal(error)) throw error
      entry.state = 'refused'
      entry.error = record.error
      return codedError(error)
    }
  }

  /** The capture's new status comes with the order; the refund is done even if this look-up fails. */
  async #refresh (record: CheckoutRecord): Promise<void> {
    const order = await this.api.getOrder(record.id).catch(() => undefined)
    if (order !== undefined) this.views.take(record, order, 'refund')
  }
}
