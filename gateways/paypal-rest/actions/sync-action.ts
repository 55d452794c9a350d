import { Sync, type Action } from '../../../plugins/core/engine/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, type PaypalRecord } from '../details.ts'
import type { PaypalViews } from '../views.ts'

/**
 * Refreshes the details from PayPal (GET the payment), through the status transitions: a
 * canceled, expired, failed or refunded payment is never brought back to pending by
 * PayPal's "created". A payment not created at PayPal yet has nothing to sync.
 */
export class SyncAction implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalRestApi
  readonly views: PaypalViews

  constructor (api: PaypalRestApi, views: PaypalViews) {
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return request instanceof Sync && recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    const record = recordOf(request.model) as PaypalRecord
    if (typeof record.id !== 'string') return
    this.views.take(record, await this.api.getPayment(record.id), 'sync')
  }
}
