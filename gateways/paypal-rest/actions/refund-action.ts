import { Checkpoint, GatewayAwareAction, Refund, errorCodes } from '../../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalError, type PaypalResource, type PaypalRestApi } from '../api.ts'
import { paypalStatus, recordOf, saleOf, uniqueRequestId, type PaypalRecord } from '../details.ts'
import { toPaypalAmount } from '../../paypal-shared/index.ts'
import type { PaypalViews } from '../views.ts'
import { isFinalRefusal } from './failures.ts'

/** One refund as Paywire keeps it in `details.paywire_refunds`. */
export interface RefundEntry {
  /** Its own PayPal-Request-Id: unique per refund, never reused for another one. */
  requestId: string
  saleId: string
  /** What was asked, in minor units; null: what remained of the sale. */
  requested: number | null
  currency: string
  /** `pending`: recorded, PayPal's answer not known yet; `completed`: PayPal made it; `refused`: PayPal said no. */
  state: 'pending' | 'completed' | 'refused'
  /** PayPal's refund id, amount and state, once made. */
  id?: string
  amount?: { total: string, currency: string }
  refund_state?: string
  /** PayPal's refusal. */
  error?: PaypalError
}

function bodyOf (entry: RefundEntry): PaypalResource {
  return entry.requested === null ? {} : { amount: { total: toPaypalAmount(entry.requested, entry.currency), currency: entry.currency } }
}

/**
 * Refunds the payment's sale, fully or by an amount in minor units. A refund is recorded as
 * an intent (its own request id, the amount, state `pending`) and stored (a Checkpoint)
 * before PayPal is called, then completed with PayPal's answer. An intent whose answer was
 * lost stays pending: the next Refund first settles it with its own id and amount (PayPal
 * replays the refund it made, or makes it now), and when the amounts match that settlement
 * is the answer, so retrying a refund never refunds twice. A different refund always gets a
 * new id. A refused refund keeps its id, marked refused, and PayPal's error is thrown as a
 * provider error.
 */
export class RefundAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']

  readonly api: PaypalRestApi
  readonly views: PaypalViews

  constructor (api: PaypalRestApi, views: PaypalViews) {
    super()
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return request instanceof Refund && recordOf(request.model) !== undefined
  }

  async execute (request: Refund): Promise<void> {
    const record = recordOf(request.model) as PaypalRecord
    const entries = (record.paywire_refunds ??= []) as RefundEntry[]
    const pending = entries.find((entry) => entry.state === 'pending' && typeof entry.requestId === 'string')
    if (pending !== undefined) {
      const refusal = await this.#settle(record, pending)
      await this.#refresh(record)
      if (pending.requested === (request.amount ?? null)) {
        if (refusal !== undefined) throw refusal
        return
      }
    }
    const sale = saleOf(record)
    if (sale === undefined || (sale.state !== 'completed' && sale.state !== 'partially_refunded')) {
      throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', paypalStatus(record))
    }
    const entry: RefundEntry = {
      requestId: uniqueRequestId(record, 'refund'),
      saleId: sale.id,
      requested: request.amount ?? null,
      currency: sale.amount.currency,
      state: 'pending'
    }
    // An amount PayPal cannot take (a fraction of HUF) is refused before anything is recorded.
    bodyOf(entry)
    entries.push(entry)
    await this.gateway.execute(new Checkpoint())
    const refusal = await this.#settle(record, entry)
    if (refusal !== undefined) throw refusal
    // The sale's new state (refunded, partially_refunded) comes with the payment. The refund is
    // done even if this look-up fails: no error, or a retry would refund again; the state
    // catches up with the PAYMENT.SALE.REFUNDED webhook or a Sync.
    await this.#refresh(record)
  }

  /**
   * Asks PayPal for the refund an entry records, with its own id and amount. Completed: undefined.
   * Refused for good: the entry is marked refused and the error returned. Outcome unknown
   * (no answer, 5xx, 409, 429): the entry stays pending and the error is thrown.
   */
  async #settle (record: PaypalRecord, entry: RefundEntry): Promise<Error | undefined> {
    try {
      const refund = await this.api.refundSale(entry.saleId, bodyOf(entry), entry.requestId)
      Object.assign(entry, { state: 'completed', id: refund.id, amount: refund.amount, refund_state: refund.state })
      delete record.error
      return undefined
    } catch (error) {
      if (!isPaypalCallError(error)) throw error
      record.error = error.paypal
      if (!isFinalRefusal(error)) throw error
      entry.state = 'refused'
      entry.error = error.paypal
      return error
    }
  }

  async #refresh (record: PaypalRecord): Promise<void> {
    const payment = await this.api.getPayment(record.id).catch(() => undefined)
    if (payment !== undefined) this.views.take(record, payment, 'refund')
  }
}
