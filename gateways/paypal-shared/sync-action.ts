import { Sync, type Action } from '../../plugins/core/engine/index.ts'
import type { PaypalResource } from './client.ts'

/**
 * Refreshes a record from PayPal, for both PayPal APIs, through the status transitions: a
 * canceled, expired, failed or refunded payment is never brought back to pending by PayPal's
 * "created". A payment not created at PayPal yet has nothing to sync. Each API says how its
 * record is found and what it fetches.
 */
export abstract class PaypalSyncAction<
  R extends Record<string, any>,
  Api,
  Views extends { take: (record: R, view: PaypalResource, source: 'sync') => unknown }
> implements Action {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']

  readonly api: Api
  readonly views: Views

  constructor (api: Api, views: Views) {
    this.api = api
    this.views = views
  }

  protected abstract recordOf (model: unknown): R | undefined
  /** PayPal's current view of the payment whose PayPal id is `id`. */
  protected abstract lookUp (id: string): Promise<PaypalResource>

  supports (request: unknown): boolean {
    return request instanceof Sync && this.recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    const record = this.recordOf(request.model) as R
    if (typeof record.id !== 'string') return
    this.views.take(record, await this.lookUp(record.id), 'sync')
  }
}
