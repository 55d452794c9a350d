import { BaseGetStatus, HumanStatus, type Action } from '../../../plugins/core/engine/index.ts'
import { paypalAmounts } from '../amounts.ts'
import { paypalStatus, recordOf, type PaypalRecord } from '../details.ts'

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

/**
 * The payment's status from PayPal's payment and sale states (table in the README), and,
 * once there is a sale, how much was captured, refunded and reversed (minor units).
 */
export class StatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && recordOf(request.model) !== undefined
  }

  execute (request: BaseGetStatus<unknown>): void {
    const record = recordOf(request.model) as PaypalRecord
    request[MARKS[paypalStatus(record)]]()
    const amounts = paypalAmounts(record)
    if (amounts !== undefined) request.setAmounts(amounts)
  }
}
