import type { HumanStatusValue, Logger, PaymentAmounts, ProviderView, StatusTransitions, TransitionDecision } from '../../plugins/core/engine/index.ts'
import type { PaypalResource } from './client.ts'
import type { PaypalRestConfig } from './config.ts'

/** Statuses that say money moved (or is held): a disagreement about them is one about money. */
const MONEY_MOVED: ReadonlySet<HumanStatusValue> = new Set(['authorized', 'captured', 'refunded', 'payedout', 'suspended'])

/** What a PayPal API tells the shared views about its records: their status and their amounts. */
export interface PaypalRecordReading<R> {
  status: (record: R) => HumanStatusValue
  amounts: (record: R) => PaymentAmounts | undefined
}

/**
 * The one way PayPal's view of a payment (a create, execute or capture answer, a Sync, a
 * webhook's look-up, the look-up after a refund) enters a record, for both PayPal APIs. The
 * gateway's StatusTransitions decide: a forward move is taken; a view that says money moved
 * after the shop ended the payment (a capture after a cancel) is taken too and logged at warn
 * ("overrule"); a stale, duplicate or out-of-order view is kept out, and so is one with the
 * same status that knows of fewer refunds than the record. Paywire's own `paywire_*`
 * bookkeeping is never overwritten: PayPal's answers have no such fields.
 */
export abstract class PaypalViewsBase<R extends Record<string, any>, Source extends string> {
  readonly transitions: StatusTransitions
  readonly #logger: Logger
  readonly #gatewayName: string
  readonly #reading: PaypalRecordReading<R>
  /** How the log line of an overrule names the PayPal object (`payment`, `order`). */
  readonly #objectName: string

  constructor (transitions: StatusTransitions, logger: Logger, config: PaypalRestConfig, reading: PaypalRecordReading<R>, objectName: string) {
    this.transitions = transitions
    this.#logger = logger
    this.#gatewayName = config.gatewayName
    this.#reading = reading
    this.#objectName = objectName
  }

  /** Takes `view` into `record` if the transitions allow it; returns what was decided. */
  take (record: R, view: PaypalResource, source: Source): TransitionDecision {
    const merged: R = this.merged(record, view)
    const from = this.#reading.status(record)
    const to = this.#reading.status(merged)
    let decision = this.transitions.decide(from, to)
    if (decision === 'apply' && from === to && (this.#reading.amounts(merged)?.refunded ?? 0) < (this.#reading.amounts(record)?.refunded ?? 0)) decision = 'keep'
    if (decision === 'keep') {
      // A Sync's view is PayPal's current word, not a late webhook: kept out while one side says money
      // moved, it is a disagreement to report (money.mismatch). A payment the shop ended that PayPal
      // still reads as created (never executed, expired) is no such thing.
      if (source === 'sync' && (MONEY_MOVED.has(from) || MONEY_MOVED.has(to))) {
        const amounts = this.#reading.amounts(merged)
        const provider: ProviderView = { status: to, ...(amounts === undefined ? {} : { amounts }) }
        Object.assign(record, { paywire_provider_view: provider })
      }
      return decision
    }
    if (source === 'sync') delete (record as Record<string, unknown>).paywire_provider_view
    if (decision === 'overrule') {
      this.#logger.warn({ paypal: { gateway: this.#gatewayName, [this.#objectName]: merged.id, from, to, source } },
        'PayPal says money moved after the payment had ended here: PayPal\'s view is taken')
      this.overruled(record)
    }
    Object.assign(record, view)
    this.taken(record)
    return decision
  }

  /** The record as it would be with the view taken, to read the status it would have. */
  protected merged (record: R, view: PaypalResource): R {
    return { ...record, ...view }
  }

  /** After PayPal's word overruled the shop's own end of the payment. */
  protected overruled (_record: R): void {}

  /** After a view was taken. */
  protected taken (_record: R): void {}
}

/** What PayPal said at the last Sync when the record kept its own reading (`paywire_provider_view`), for the state readers. */
export function providerViewOf (record: Record<string, any>): ProviderView | undefined {
  const view = record.paywire_provider_view as ProviderView | undefined
  return typeof view?.status === 'string' ? view : undefined
}
