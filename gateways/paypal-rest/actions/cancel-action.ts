import { Cancel, errorCodes, type Action } from '../../../plugins/core/engine/index.ts'
import { awaitsBuyer, paypalStatus, recordOf, type PaypalRecord } from '../details.ts'

/**
 * Cancels a payment the buyer has not approved yet: PayPal has nothing to call for that
 * (an unexecuted payment simply expires), so only the details change. An executed payment
 * is refunded, not canceled.
 */
export class CancelAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Cancel && recordOf(request.model) !== undefined
  }

  execute (request: Cancel): void {
    const record = recordOf(request.model) as PaypalRecord
    if (!awaitsBuyer(record)) throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Cancel', paypalStatus(record))
    record.state = 'cancelled'
  }
}
