import { ArrayObject, BaseGetStatus, type Action } from '../../../plugins/core/engine/index.ts'
import { OfflineField, OfflineStatus } from '../constants.ts'

export class StatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && request.model instanceof ArrayObject
  }

  execute (request: BaseGetStatus<unknown>): void {
    const details = request.model as ArrayObject
    switch (details.get<string | undefined>(OfflineField.STATUS)) {
      case undefined: return request.markNew()
      case OfflineStatus.PENDING: return request.markPending()
      case OfflineStatus.AUTHORIZED: return request.markAuthorized()
      case OfflineStatus.CAPTURED: return request.markCaptured()
      case OfflineStatus.PAYEDOUT: return request.markPayedout()
      case OfflineStatus.REFUNDED: return request.markRefunded()
      case OfflineStatus.CANCELED: return request.markCanceled()
      default: return request.markUnknown()
    }
  }
}
