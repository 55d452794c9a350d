import { BaseGetStatus, HumanStatus, Sync, type Action } from '../../../plugins/core/engine/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { capturesOf, checkoutAmounts, paypalStatus, recordOf, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'

const MARKS = {
  [HumanStatus.NEW]: 'markNew',
  [HumanStatus.PENDING]: 'markPending',
  [HumanStatus.CAPTURED]: 'markCaptured',
  [HumanStatus.AUTHORIZED]: 'markAuthorized',
  [HumanStatus.REFUNDED]: 'markRefunded',
  [HumanStatus.CANCELED]: 'markCanceled',
  [HumanStatus.FAILED]: 'markFailed',
  [HumanStatus.EXPIRED]: 'markExpired',
  [HumanStatus.PAYEDOUT]: 'markPayedout',
  [HumanStatus.SUSPENDED]: 'markSuspended',
  [HumanStatus.UNKNOWN]: 'markUnknown'
} as const

/** The status from the order together with its captures and authorization, and the amounts that moved. */
export class StatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && recordOf(request.model) !== undefined
  }

  execute (request: BaseGetStatus<unknown>): void {
    const record = recordOf(request.model) as CheckoutRecord
    request[MARKS[paypalStatus(record)]]()
    const amounts = checkoutAmounts(record)
    if (amounts !== undefined) request.setAmounts(amounts)
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
