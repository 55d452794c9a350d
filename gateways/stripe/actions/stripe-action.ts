import { Checkpoint, GatewayAwareAction } from '../../../plugins/core/engine/index.ts'
import type { StripeApi } from '../api.ts'
import type Stripe from 'stripe'
import { isOutcomeUnknown, recordedError } from '../errors.ts'
import type { StripeReads } from '../reads.ts'
import { closeKey, openKey, type StripeRecord } from '../record.ts'
import type { StripeViews } from '../views.ts'

/** The base of the stripe gateway's actions: the API, the views, Stripe's reads, and calls made with a stored key. */
export abstract class StripeAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views', 'reads']
  readonly api: StripeApi
  readonly views: StripeViews
  readonly reads: StripeReads

  constructor (api: StripeApi, views: StripeViews, reads: StripeReads) {
    super()
    this.api = api
    this.views = views
    this.reads = reads
  }

  /**
   * One POST of `operation`: its idempotency key is recorded and committed (Checkpoint) before
   * the call; an answer (Stripe's object, or its refusal) spends the key, a lost one keeps it
   * for the retry. Stripe's errors are recorded in `details.error` and thrown as they are; a
   * failed checkpoint is thrown before anything is sent.
   */
  protected async call<T> (record: StripeRecord, operation: string, send: (idempotencyKey: string) => Promise<T>): Promise<T> {
    const key = openKey(record, operation)
    await this.gateway.execute(new Checkpoint())
    try {
      const answer = await send(key)
      closeKey(record, operation)
      delete record.error
      return answer
    } catch (error) {
      // The SDK rejects with its own error classes only (a lost connection is StripeConnectionError).
      record.error = recordedError(error as Stripe.errors.StripeError)
      if (!isOutcomeUnknown(error as Stripe.errors.StripeError)) closeKey(record, operation)
      throw error
    }
  }
}
