import type { Logger, StatusTransitions } from '../../plugins/core/engine/index.ts'
import { PaypalViewsBase, type PaypalRestConfig } from '../paypal-shared/index.ts'
import { paypalAmounts } from './amounts.ts'
import { paypalStatus, type PaypalRecord } from './details.ts'

/** Which call brought PayPal's view: named in the log line of an overrule. */
export type ViewSource = 'create' | 'execute' | 'sync' | 'webhook' | 'refund'

/** PayPal's view of a Payments v1 payment entering its record (see PaypalViewsBase): nothing of its own. */
export class PaypalViews extends PaypalViewsBase<PaypalRecord, ViewSource> {
  constructor (transitions: StatusTransitions, logger: Logger, config: PaypalRestConfig) {
    super(transitions, logger, config, { status: paypalStatus, amounts: paypalAmounts }, 'payment')
  }
}
