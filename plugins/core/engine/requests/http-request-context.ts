import { AsyncLocalStorage } from 'node:async_hooks'
import type { HttpRequestData } from './get-http-request.ts'

/*
 * The HTTP request a web framework is serving, for GetHttpRequestAction. Kept per async
 * chain so concurrent requests never see each other's query or body.
 */
const currentHttpRequest = new AsyncLocalStorage<HttpRequestData>()

export function runWithHttpRequest<T> (request: HttpRequestData, fn: () => T): T {
  return currentHttpRequest.run(request, fn)
}

export function getCurrentHttpRequest (): HttpRequestData | undefined {
  return currentHttpRequest.getStore()
}
