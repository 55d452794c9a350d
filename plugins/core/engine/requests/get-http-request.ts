export interface HttpRequestData {
  method: string
  uri: string
  query: Record<string, unknown>
  request: Record<string, unknown>
  content: string
  headers: Record<string, string | string[] | undefined>
  clientIp: string
  userAgent: string
  /**
   * The request's own logger (Fastify's `request.log`): while the request runs, Paywire's
   * lines go there, redacted, instead of to the logger given with addGlobalService(Logger).
   */
  log?: object
}

/**
 * Filled with the HTTP request being served, so actions can read return-leg parameters
 * (PayerID, cancelled...) without knowing the web framework.
 */
export class GetHttpRequest implements HttpRequestData {
  method = ''
  uri = ''
  query: Record<string, unknown> = {}
  request: Record<string, unknown> = {}
  /** The raw body, as received: webhook signatures are computed over these exact bytes. */
  content = ''
  headers: Record<string, string | string[] | undefined> = {}
  clientIp = ''
  userAgent = ''
}
