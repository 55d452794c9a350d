import { Cancel, Checkpoint, GatewayAwareAction, HumanStatus, errorCodes } from '../../../plugins/core/engine/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { codedError, isFinalRefusal, isPaypalCallError, recordedError } from '../errors.ts'
import { authorizationOf, awaitsBuyer, paypalStatus, recordOf, requestIdFor, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'

/**
 * Cancels a payment the buyer has not paid: before approval only the details change (an order
 * nobody captures simply expires at PayPal); an authorized payment's authorization is voided
 * (its PayPal-Request-Id stored first). A captured payment is refunded, not canceled.
 */
export class CancelAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalCheckoutApi
  readonly views: CheckoutViews

  constructor (api: PaypalCheckoutApi, views: CheckoutViews) {
    super()
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    return request instanceof Cancel && recordOf(request.model) !== undefined
  }

  async execute (request: Cancel): Promise<void> {
    const record = recordOf(request.model) as CheckoutRecord
    if (awaitsBuyer(record)) {
      record.paywire_state = 'cancelled'
      return
    }
    if (paypalStatus(record) !== HumanStatus.AUTHORIZED) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Cancel', paypalStatus(record))
    const requestId = requestIdFor(record, 'void')
    await this.gateway.execute(new Checkpoint())
    try {
      await this.api.voidAuthorization((authorizationOf(record) as Record<string, any>).id, requestId)
    } catch (error) {
      if (!isPaypalCallError(error)) throw error
      record.error = recordedError(error)
      throw isFinalRefusal(error) ? codedError(error) : error
    }
    delete record.error
    const order = await this.api.getOrder(record.id).catch(() => undefined)
    if (order !== undefined) this.views.take(record, order, 'void')
  }
}
