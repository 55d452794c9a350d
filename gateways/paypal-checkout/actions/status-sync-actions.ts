import { StatusFromReaderAction } from '../../../plugins/core/engine/index.ts'
import { PaypalSyncAction, type PaypalResource } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { capturesOf, recordOf, type CheckoutRecord } from '../record.ts'
import { CheckoutStateReader } from '../state-reader.ts'
import type { CheckoutViews } from '../views.ts'

/**
 * The status from the order with its captures and authorization, and the amounts that moved,
 * from CheckoutStateReader (its one statement of them). The factory does not list it: the
 * core factory answers status requests from the registered reader.
 */
export class StatusAction extends StatusFromReaderAction {
  constructor () {
    super(new CheckoutStateReader())
  }
}

/**
 * Refreshes an Orders v2 order (see PaypalSyncAction): GET the order, and each capture it lists
 * (a capture's own resource is where PayPal shows a settled or refunded state first), and the
 * disputes on its captures.
 */
export class SyncAction extends PaypalSyncAction<CheckoutRecord, PaypalCheckoutApi, CheckoutViews> {
  protected recordOf (model: unknown): CheckoutRecord | undefined {
    return recordOf(model)
  }

  protected async lookUp (id: string): Promise<PaypalResource> {
    const order = await this.api.getOrder(id)
    const captures = await Promise.all(capturesOf(order).map(async (capture) => await this.api.getCapture(capture.id)))
    if (captures.length > 0) order.purchase_units[0].payments.captures = captures
    return order
  }

  protected disputableIds (record: CheckoutRecord): string[] {
    return capturesOf(record).map((capture) => capture.id).filter((id): id is string => typeof id === 'string')
  }
}
