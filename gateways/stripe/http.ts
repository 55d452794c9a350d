import Stripe from 'stripe'
import { observeProviderCall, type HttpClient, type HttpClientResponse, type Logger } from '../../plugins/core/engine/index.ts'

/** How many idempotency keys the adapter remembers to number the SDK's retries of one POST. */
const REMEMBERED_KEYS = 1000

/** An answer as the SDK reads it: status, headers and the JSON body (read once, already in memory). */
class StripeHttpResponse extends Stripe.HttpClientResponse {
  readonly #body: string

  constructor (response: HttpClientResponse) {
    super(response.statusCode, response.headers)
    this.#body = response.body
  }

  /** What the SDK exposes as `lastResponse` (it adds the Request-Id to it): a fresh object, never the body. */
  override getRawResponse (): unknown {
    return {}
  }

  override toStream (): unknown {
    throw new Error('Paywire\'s Stripe client reads whole answers: streaming is not used.')
  }

  override async toJSON (): Promise<any> {
    return this._parseResponseBody(this.#body)
  }
}

/**
 * The SDK's HTTP layer on Paywire's HttpClient (replaceable with addGlobalService(HttpClient,
 * …) for proxies or recording), each exchange observed (a CLIENT span and a debug line:
 * method, path, status, Stripe's Request-Id, attempt; never headers or bodies). The SDK keeps
 * its retries and its errors: a timeout is reported as the SDK's own timeout error.
 */
export class StripeHttpAdapter extends Stripe.HttpClient {
  readonly #http: HttpClient
  readonly #logger: Logger
  readonly #attempts = new Map<string, number>()

  constructor (http: HttpClient, logger: Logger) {
    super()
    this.#http = http
    this.#logger = logger
  }

  override getClientName (): string {
    return 'paywire'
  }

  override async makeRequest (host: string, port: string, path: string, method: string, headers: Record<string, string | number | string[]>,
    requestData: string, protocol: string, timeout: number): Promise<StripeHttpResponse> {
    const flat: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) flat[name] = Array.isArray(value) ? value.join(', ') : String(value)
    const url = `${protocol}://${host}:${port}${path}`
    const call = { provider: 'Stripe', method, url, path: path.split('?')[0] as string, attempt: this.#attempt(flat['Idempotency-Key']), debugIdHeader: 'request-id' }
    try {
      const response = await observeProviderCall(this.#logger, call, async () =>
        await this.#http.send({ method, url, headers: flat, body: requestData === '' ? undefined : requestData, timeoutMs: timeout }))
      return new StripeHttpResponse(response)
    } catch (error) {
      throw (error as Error | null)?.name === 'TimeoutError' ? Stripe.HttpClient.makeTimeoutError() : error
    }
  }

  /** 1 for a key's first send, then 2, 3… for the SDK's retries with the same key (GETs have none: 1). */
  #attempt (key: string | undefined): number {
    if (key === undefined) return 1
    const attempt = (this.#attempts.get(key) ?? 0) + 1
    this.#attempts.delete(key)
    this.#attempts.set(key, attempt)
    if (this.#attempts.size > REMEMBERED_KEYS) this.#attempts.delete(this.#attempts.keys().next().value as string)
    return attempt
  }
}
