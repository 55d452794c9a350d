import { ApiAware, type Action, type Capture, type Refund } from 'paywire/engine'
import { capture, refund, supportsCapture, supportsRefund } from '../shared/acme-operations.ts'
import { AcmeApi } from './acme-api.ts'

// #region capture-action
export class CaptureAction extends ApiAware(Object, AcmeApi) implements Action {
  supports (request: unknown): boolean {
    return supportsCapture(request)
  }

  async execute (request: Capture): Promise<void> {
    await capture(this.api, request)
  }
}
// #endregion capture-action

export class RefundAction extends ApiAware(Object, AcmeApi) implements Action {
  supports (request: unknown): boolean {
    return supportsRefund(request)
  }

  async execute (request: Refund): Promise<void> {
    await refund(this.api, request)
  }
}
