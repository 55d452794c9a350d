import { ArrayObject, BaseGetStatus, type Action } from 'paywire/engine'
import { AcmeField, AcmeStatus } from './acme-protocol.ts'

/** Needs no API, so it is the same in both versions. */
export class StatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && request.model instanceof ArrayObject
  }

  execute (request: BaseGetStatus<unknown>): void {
    const details = request.model as ArrayObject
    switch (details.get<string | undefined>(AcmeField.STATUS)) {
      case undefined: return request.markNew()
      case AcmeStatus.CAPTURED: return request.markCaptured()
      case AcmeStatus.REFUNDED: return request.markRefunded()
      default: return request.markUnknown()
    }
  }
}
