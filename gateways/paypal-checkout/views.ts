import type { Logger, StatusTransitions } from '../../plugins/core/engine/index.ts'
import { PaypalViewsBase, type PaypalResource, type PaypalRestConfig } from '../paypal-shared/index.ts'
import { checkoutAmounts, paypalStatus, type CheckoutRecord } from './record.ts'

export type CheckoutViewSource = 'create' | 'capture' | 'authorize' | 'sync' | 'webhook' | 'refund' | 'void'

/**
 * PayPal's view of an Orders v2 order entering its record (see PaypalViewsBase). What differs
 * from Payments v1: the shop can end an order on its own (`paywire_state`: cancelled, failed),
 * which stays unless PayPal says money moved since, and a completed order leaves no capture or
 * authorize with an unknown outcome.
 */
export class CheckoutViews extends PaypalViewsBase<CheckoutRecord, CheckoutViewSource> {
  constructor (transitions: StatusTransitions, logger: Logger, config: PaypalRestConfig) {
    super(transitions, logger, config, { status: paypalStatus, amounts: checkoutAmounts }, 'order')
  }

  protected override merged (record: CheckoutRecord, view: PaypalResource): CheckoutRecord {
    const merged = { ...record, ...view }
    delete merged.paywire_state
    return merged
  }

  protected override overruled (record: CheckoutRecord): void {
    delete record.paywire_state
  }

  protected override taken (record: CheckoutRecord): void {
    if (record.status === 'COMPLETED' && record.paywire_attempts !== undefined) record.paywire_attempts = {}
  }
}
