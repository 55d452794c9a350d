import { getCurrentHttpRequest } from '../../requests/http-request-context.ts'
import { GetHttpRequest } from '../../requests/get-http-request.ts'
import type { Action } from './action.ts'

/** Fills GetHttpRequest from the request a web framework registered (runWithHttpRequest). Outside HTTP it stays empty. */
export class GetHttpRequestAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof GetHttpRequest
  }

  execute (request: GetHttpRequest): void {
    const current = getCurrentHttpRequest()
    if (current === undefined) return
    // The request's logger is Paywire's business, not the gateway's.
    const { log: _log, ...data } = current
    Object.assign(request, data)
  }
}
