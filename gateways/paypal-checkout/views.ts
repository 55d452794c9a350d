import type { Logger, StatusTransitions, TransitionDecision } from '../../plugins/core/engine/index.ts'
import type { PaypalResource, PaypalRestConfig } from '../paypal-shared/index.ts'
import { checkoutAmounts, paypalStatus, type CheckoutRecord } from './record.ts'

export type CheckoutViewSource = 'create' | 'capture' | 'authorize' | 'sync' | 'webhook' | 'refund' | 'void'

/**
 * The one way PayPal's view of an order enters a record, through the gateway's StatusTransitions:
 * a forward move is taken; PayPal's word that money moved after the shop ended the payment on its
 * own (a capture after a cancel) is taken and logged at warn; a stale or out-of-order view, or one
 * with the same status that knows of fewer refunds, is kept out.
 */
export class CheckoutViews {
  readonly transitions: StatusTransitions
  readonly #logger: Logger
  readonly #gatewayName: string

  constructor (transitions: StatusTransitions, logger: Logger, config: PaypalRestConfig) {
    this.transitions = transitions
    this.#logger = logger
    this.#gatewayName = config.gatewayName
  }

  take (record: CheckoutRecord, view: PaypalResource, source: CheckoutViewSource): TransitionDecision {
    const merged = { ...record, ...view }
    const from = paypalStatus(record)
    // A local end (cancelled, failed) stays unless PayPal says money moved since.
    delete merged.paywire_state
    const to = paypalStatus(merged)
    let decision = this.transitions.decide(from, to)
    if (decision === 'apply' && from === to && (checkoutAmounts(merged)?.refunded ?? 0) < (checkoutAmounts(record)?.refunded ?? 0)) decision = 'keep'
    if (decision === 'keep') return decision
    if (decision === 'overrule') {
      this.#logger.warn({ paypal: { gateway: this.#gatewayName, order: merged.id, from, to, source } },
        'PayPal says money moved after the payment had ended here: PayPal\'s view is taken')
      delete record.paywire_state
    }
    Object.assign(record, view)
    // PayPal completed the order: no capture or authorize of it is left with an unknown outcome.
    if (record.status === 'COMPLETED' && record.paywire_attempts !== undefined) record.paywire_attempts = {}
    return decision
  }
}
