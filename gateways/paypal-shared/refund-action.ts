import { Checkpoint, GatewayAwareAction, Refund } from '../../plugins/core/engine/index.ts'
import type { PaypalResource } from './client.ts'

/** One refund as Paywire keeps it in `details.paywire_refunds`, whatever the PayPal API. */
export interface PaypalRefundEntry {
  /** Its own PayPal-Request-Id: unique per refund, never reused for another one. */
  requestId: string
  /** What was asked, in minor units; null: what remained of the sale or capture. */
  requested: number | null
  currency: string
  /**
   * `pending`: recorded, PayPal's answer not known yet; `completed`: PayPal made it and the money
   * went back; `processing`: PayPal took it but the money has not moved yet (an eCheck: PayPal's
   * refund state PENDING), the payment's own listing tells when it does; `failed`: PayPal answered
   * FAILED or CANCELLED, nothing went back; `refused`: PayPal said no.
   */
  state: 'pending' | 'completed' | 'processing' | 'failed' | 'refused'
  /** PayPal's refund id, once made. */
  id?: string
  /** PayPal's refusal, as the API records it. */
  error?: unknown
}

/** A failed refund call as an API reads it: what to record, whether PayPal said no for good, and the error to answer with. */
export interface RefundSettlement {
  recorded: unknown
  final: boolean
  refusal: Error
}

/**
 * Refunds a payment, fully or by an amount in minor units, for both PayPal APIs. A refund is
 * recorded as an intent (its own request id, the amount, state `pending`) and stored (a
 * Checkpoint) before PayPal is called, then completed with PayPal's answer. An intent whose
 * answer was lost stays pending: the next Refund first settles it with its own id and amount
 * (PayPal replays the refund it made, or makes it now), and when the amounts match that
 * settlement is the answer, so retrying a refund never refunds twice. A different refund always
 * gets a new id. A refused refund keeps its id, marked refused, and the refusal is thrown. Each
 * API says what it refunds (a sale, a capture), how it calls PayPal and how it reads a failure.
 */
export abstract class PaypalRefundAction<
  R extends Record<string, any>,
  E extends PaypalRefundEntry,
  Api,
  Views extends { take: (record: R, view: PaypalResource, source: 'refund') => unknown }
> extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']

  readonly api: Api
  readonly views: Views

  constructor (api: Api, views: Views) {
    super()
    this.api = api
    this.views = views
  }

  protected abstract recordOf (model: unknown): R | undefined
  /** The intent of a new refund of `amount` (null: all that remains); PAYWIRE_ERR_OPERATION_NOT_ALLOWED when nothing can be refunded. */
  protected abstract newEntry (record: R, amount: number | null): E
  /** The refund call's body; throws for an amount PayPal cannot take. */
  protected abstract bodyOf (entry: E): PaypalResource
  /**
   * Asks PayPal for the refund, with the entry's own request id; returns the fields of the made
   * refund to keep on the entry, with its `state` when the money did not go back yet or at all.
   */
  protected abstract refundAt (entry: E, body: PaypalResource): Promise<Partial<E>>
  /** A failed call as this API reads it; undefined when it is no PayPal answer (rethrown as it is). */
  protected abstract settlementOf (error: unknown): RefundSettlement | undefined
  /** PayPal's current view of the payment, looked up after a refund. */
  protected abstract lookUp (record: R): Promise<PaypalResource>

  supports (request: unknown): boolean {
    return request instanceof Refund && this.recordOf(request.model) !== undefined
  }

  async execute (request: Refund): Promise<void> {
    const record = this.recordOf(request.model) as R
    const entries = ((record as Record<string, any>).paywire_refunds ??= []) as E[]
    const pending = entries.find((entry) => entry.state === 'pending' && typeof entry.requestId === 'string')
    if (pending !== undefined) {
      const refusal = await this.#settle(record, pending)
      await this.#refreshQuietly(record)
      if (pending.requested === (request.amount ?? null)) {
        if (refusal !== undefined) throw refusal
        return
      }
    }
    const entry = this.newEntry(record, request.amount ?? null)
    // An amount PayPal cannot take (a fraction of HUF) is refused before anything is recorded.
    this.bodyOf(entry)
    entries.push(entry)
    await this.gateway.execute(new Checkpoint())
    const refusal = await this.#settle(record, entry)
    if (refusal !== undefined) throw refusal
    // The new state (refunded, partially refunded) comes with the payment. The refund is done
    // even if this look-up fails: no error, or a retry would refund again; the state catches
    // up with PayPal's REFUNDED webhook or a Sync.
    await this.#refreshQuietly(record)
  }

  /**
   * Asks PayPal for the refund an entry records, with its own id and amount. Completed: undefined.
   * Refused for good: the entry is marked refused and the refusal returned. Outcome unknown
   * (no answer, 5xx, 409, 429): the entry stays pending and the error is thrown.
   */
  async #settle (record: R, entry: E): Promise<Error | undefined> {
    try {
      Object.assign(entry, { state: 'completed' }, await this.refundAt(entry, this.bodyOf(entry)))
      delete record.error
      return undefined
    } catch (error) {
      const settlement = this.settlementOf(error)
      if (settlement === undefined) throw error
      ;(record as Record<string, unknown>).error = settlement.recorded
      if (!settlement.final) throw error
      entry.state = 'refused'
      entry.error = settlement.recorded
      return settlement.refusal
    }
  }

  async #refreshQuietly (record: R): Promise<void> {
    const view = await this.lookUp(record).catch(() => undefined)
    if (view !== undefined) this.views.take(record, view, 'refund')
  }
}

/** The ledger state of a refund PayPal made, from its own state (v1 `pending`, v2 `PENDING`…): only a completed one moved money. */
export function refundLedgerState (paypalState: unknown): PaypalRefundEntry['state'] {
  const state = typeof paypalState === 'string' ? paypalState.toUpperCase() : 'COMPLETED'
  if (state === 'PENDING') return 'processing'
  if (state === 'FAILED' || state === 'CANCELLED' || state === 'CANCELED') return 'failed'
  return 'completed'
}

/** PayPal's refund states that are final, v1 (`completed`, `failed`, `cancelled`) and v2 (upper case) alike. */
const SETTLED_REFUND_STATES: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'CANCELED'])

/**
 * Refunds neither completed nor failed yet: those PayPal lists in another state (PENDING: an
 * eCheck's money has not gone back), and those of Paywire's ledger PayPal does not list yet
 * whose answer was lost (`pending`) or not final (`processing`). What the reconciliation
 * sweeper looks at again until PayPal tells their end.
 */
export function pendingRefundCount (listed: ReadonlyArray<{ id?: unknown, status?: unknown }>, ledger: unknown): number {
  const ids = new Set<unknown>(listed.map((refund) => refund.id).filter((id) => typeof id === 'string'))
  const unsettled = listed.filter((refund) => !SETTLED_REFUND_STATES.has(String(refund.status).toUpperCase())).length
  const entries = Array.isArray(ledger) ? ledger as Array<Partial<PaypalRefundEntry>> : []
  return unsettled + entries.filter((entry) => (entry.state === 'pending' || entry.state === 'processing') && !ids.has(entry.id)).length
}
