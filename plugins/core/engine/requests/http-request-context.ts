import { chainFrame, runInFrame } from '../async-chain.ts'
import type { HttpRequestData } from './get-http-request.ts'

/*
 * The HTTP request a web framework is serving, for GetHttpRequestAction. Kept per async
 * chain so concurrent requests never see each other's query or body.
 */
export function runWithHttpRequest<T> (request: HttpRequestData, fn: () => T): T {
  return runInFrame(chainFrame().withHttpRequest(request), fn)
}

export function getCurrentHttpRequest (): HttpRequestData | undefined {
  return chainFrame().httpRequest as HttpRequestData | undefined
}
