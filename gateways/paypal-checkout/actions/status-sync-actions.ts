import { StatusFromReaderAction, Sync, type Action } from '../../../plugins/core/engine/index.ts'
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
 * GET the order, and each capture it lists (a capture's own resource is where PayPal shows a
 * settled or refunded state first), through the status transitions.
 */
export class SyncAction implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalCheckoutApi
  readonly views: CheckoutViews

  constructor (api: PaypalCheckoutApi, views: CheckoutViews) {
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return request instanceof Sync && recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    const record = recordOf(request.model) as CheckoutRecord
    if (typeof record.id !== 'string') return
    const order = await this.api.getOrder(record.id)
    const captures = await Promise.all(capturesOf(order).map(async (capture) => await this.api.getCapture(capture.id)))
    if (captures.length > 0) order.purchase_units[0].payments.captures = captures
    this.views.take(record, order, 'sync')
  }
}
