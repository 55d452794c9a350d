import { Sync, type Action } from '../../plugins/core/engine/index.ts'
import type { PaypalResource, PaypalRestClient } from './client.ts'
import { syncDisputes } from './disputes.ts'

/**
 * Refreshes a record from PayPal, for both PayPal APIs, through the status transitions: a
 * canceled, expired, failed or refunded payment is never brought back to pending by PayPal's
 * "created". A payment not created at PayPal yet has nothing to sync. Disputes whose webhooks
 * never came are read too (syncDisputes): PayPal's list for each sale or capture the payment holds.
 * Each API says how its record is found, what it fetches and which transactions can be disputed.
 */
export abstract class PaypalSyncAction<
  R extends Record<string, any>,
  Api extends PaypalRestClient,
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
  /** The ids of the sales (v1) or captures (v2) the record holds: what a buyer can dispute. */
  protected abstract disputableIds (record: R): string[]

  supports (request: unknown): boolean {
    return request instanceof Sync && this.recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    const record = this.recordOf(request.model) as R
    if (typeof record.id !== 'string') return
    this.views.take(record, await this.lookUp(record.id), 'sync')
    // After the payment's own view: a capture or sale PayPal made since is asked about too.
    await syncDisputes(this.api, record, this.disputableIds(record))
  }
}
