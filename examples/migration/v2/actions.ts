import type { Action, Capture, Refund } from 'paywire/engine'
import { capture, refund, supportsCapture, supportsRefund } from '../shared/acme-operations.ts'
import type { AcmeApi } from './acme-api.ts'

// #region capture-action
export class CaptureAction implements Action {
  /** The constructor's parameter names, in order: constructorParameter('api', ...) maps to them. */
  static readonly inject = ['api']
  readonly api: AcmeApi

  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return supportsCapture(request)
  }

  async execute (request: Capture): Promise<void> {
    await capture(this.api, request)
  }
}
// #endregion capture-action

export class RefundAction implements Action {
  static readonly inject = ['api']
  readonly api: AcmeApi

  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return supportsRefund(request)
  }

  async execute (request: Refund): Promise<void> {
    await refund(this.api, request)
  }
}
