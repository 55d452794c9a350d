import { Authorize, Capture, Checkpoint, HumanStatus } from '../../../plugins/core/engine/index.ts'
import { codedError, isFinalRefusal, isPaypalCallError, recordedError } from '../errors.ts'
import { authorizationOf, awaitsBuyer, paypalStatus, recordOf, requestIdFor, type CheckoutRecord } from '../record.ts'
import { PayerFlowAction } from './payer-flow.ts'

/**
 * Capture: the buyer's journey for a new order (see PayerFlowAction), or, for an authorized
 * payment, the capture of its authorization (all of it). Anything else (captured, failed,
 * canceled...) is left alone: a buyer reloading the return URL never pays twice.
 */
export class CaptureAction extends PayerFlowAction {
  supports (request: unknown): boolean {
    return request instanceof Capture && recordOf(request.model) !== undefined
  }

  async execute (request: Capture): Promise<void> {
    const record = recordOf(request.model) as CheckoutRecord
    if (paypalStatus(record) === HumanStatus.AUTHORIZED) return await this.#captureAuthorization(record)
    if (awaitsBuyer(record)) await this.journey(record, request)
  }

  async #captureAuthorization (record: CheckoutRecord): Promise<void> {
    const authorization = authorizationOf(record) as Record<string, any>
    const requestId = requestIdFor(record, 'authorization-capture')
    await this.gateway.execute(new Checkpoint())
    try {
      await this.api.captureAuthorization(authorization.id, { final_capture: true }, requestId)
    } catch (error) {
      if (!isPaypalCallError(error)) throw error
      record.error = recordedError(error)
      throw isFinalRefusal(error) ? codedError(error) : error
    }
    delete record.error
    // The capture is made: a failed look-up changes nothing, Sync or the webhook brings the order.
    const order = await this.api.getOrder(record.id).catch(() => undefined)
    if (order !== undefined) this.views.take(record, order, 'capture')
  }
}

/** Authorize: the buyer's journey for an order with intent AUTHORIZE; capture or void it later. */
export class AuthorizeAction extends PayerFlowAction {
  supports (request: unknown): boolean {
    return request instanceof Authorize && recordOf(request.model) !== undefined
  }

  async execute (request: Authorize): Promise<void> {
    const record = recordOf(request.model) as CheckoutRecord
    if (!awaitsBuyer(record)) return
    if (record.id === undefined) record.intent = 'AUTHORIZE'
    await this.journey(record, request)
  }
}
