import type { Logger, StatusTransitions, TransitionDecision } from '../../plugins/core/engine/index.ts'
import { paypalAmounts } from './amounts.ts'
import type { PaypalResource } from './api.ts'
import type { PaypalRestConfig } from '../paypal-shared/index.ts'
import { paypalStatus, type PaypalRecord } from './details.ts'

/** Which call brought PayPal's view: named in the log line of an overrule. */
export type ViewSource = 'create' | 'execute' | 'sync' | 'webhook' | 'refund'

/**
 * The one way PayPal's view of a payment (a create or execute answer, a Sync, a webhook's
 * look-up, the look-up after a refund) enters a record. The gateway's StatusTransitions
 * decide: a forward move is taken; a view that says money moved after the shop ended the
 * payment (a sale completed after a cancel) is taken too and logged at warn ("overrule");
 * a stale, duplicate or out-of-order view is kept out, and so is one with the same status
 * that knows of fewer refunds than the record. Paywire's own `paywire_*` bookkeeping is
 * never touched: PayPal's answers have no such fields.
 */
export class PaypalViews {
  readonly transitions: StatusTransitions
  readonly #logger: Logger
  readonly #gatewayName: string

  constructor (transitions: StatusTransitions, logger: Logger, config: PaypalRestConfig) {
    this.transitions = transitions
    this.#logger = logger
    this.#gatewayName = config.gatewayName
  }

  /** Takes `view` into `record` if the transitions allow it; returns what was decided. */
  take (record: PaypalRecord, view: PaypalResource, source: ViewSource): TransitionDecision {
    const merged = { ...record, ...view }
    const from = paypalStatus(record)
    const to = paypalStatus(merged)
    let decision = this.transitions.decide(from, to)
    if (decision === 'apply' && from === to && (paypalAmounts(merged)?.refunded ?? 0) < (paypalAmounts(record)?.refunded ?? 0)) decision = 'keep'
    if (decision === 'keep') return decision
    if (decision === 'overrule') {
      this.#logger.warn({ paypal: { gateway: this.#gatewayName, payment: merged.id, from, to, source } },
        'PayPal says money moved after the payment had ended here: PayPal\'s view is taken')
    }
    Object.assign(record, view)
    return decision
  }
}
