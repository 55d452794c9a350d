import type { Logger, ProviderView, StatusTransitions, TransitionDecision } from '../../plugins/core/engine/index.ts'
import type { StripeConfig } from './config.ts'
import { mergeById, type StripeRecord } from './record.ts'
import { moneyMoved, stripeAmounts, stripeStatus } from './status.ts'

export type ViewSource = 'create' | 'return' | 'capture' | 'cancel' | 'expire' | 'refund' | 'sync' | 'webhook'

/**
 * The one way Stripe's objects enter a record, through the gateway's StatusTransitions: a
 * forward move is taken (refunds and disputes merged by id, never dropped); Stripe's word that
 * money moved after the shop ended the payment on its own (paid in another tab after the buyer
 * went back) is taken and logged at warn; a view that would move the status backwards is kept out.
 */
export class StripeViews {
  readonly transitions: StatusTransitions
  readonly #logger: Logger
  readonly #gatewayName: string

  constructor (transitions: StatusTransitions, logger: Logger, config: StripeConfig) {
    this.transitions = transitions
    this.#logger = logger
    this.#gatewayName = config.gatewayName
  }

  take (record: StripeRecord, view: StripeRecord, source: ViewSource): TransitionDecision {
    const merged: StripeRecord = { ...record, ...view }
    if (view.refunds !== undefined) merged.refunds = mergeById(record.refunds, view.refunds)
    if (view.disputes !== undefined) merged.disputes = mergeById(record.disputes, view.disputes)
    const from = stripeStatus(record)
    const to = stripeStatus(merged)
    const decision = this.transitions.decide(from, to)
    if (decision === 'keep') {
      // A Sync's view is Stripe's current word, not a late webhook: kept out while one side says money
      // moved, it is a disagreement to report (money.mismatch).
      if (source === 'sync' && (moneyMoved(from) || moneyMoved(to))) {
        const amounts = stripeAmounts(merged)
        const provider: ProviderView = { status: to, ...(amounts === undefined ? {} : { amounts }) }
        record.paywire_provider_view = provider
      }
      return decision
    }
    if (decision === 'overrule') {
      this.#logger.warn({ stripe: { gateway: this.#gatewayName, paymentIntent: merged.id, from, to, source } },
        'Stripe says money moved after the payment had ended here: Stripe\'s view is taken')
      delete merged.paywire_state
    }
    Object.assign(record, merged)
    if (decision === 'overrule') delete record.paywire_state
    if (source === 'sync') delete record.paywire_provider_view
    return decision
  }
}
