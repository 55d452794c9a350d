import { setTimeout as sleep } from 'node:timers/promises'
import { observeProviderCall, providerError, type HttpClient, type HttpClientResponse, type Logger, type ProviderError } from '../../plugins/core/engine/index.ts'
import type { LogLevel, PaypalRestConfig } from './config.ts'

export type PaypalResource = Record<string, any>

/** PayPal's own error object (name, message, debug_id, details), as kept in a payment's details. */
export interface PaypalError {
  name: string
  message: string
  debug_id?: string
  details?: unknown[]
  information_link?: string
  /**
   * The error's HATEOAS links (Orders v2 error bodies): `information_link`, and on a recoverable decline
   * `redirect`, back to PayPal's checkout (https://developer.paypal.com/docs/checkout/standard/customize/handle-funding-failures/).
   */
  links?: unknown[]
}

/** A failed PayPal call: a coded provider error that also carries PayPal's error object and HTTP status. */
export type PaypalCallError = ProviderError & { httpStatus: number | undefined, paypal: PaypalError }

export function isPaypalCallError (error: unknown): error is PaypalCallError {
  return error instanceof Error && (error as Partial<PaypalCallError>).paypal !== undefined
}

export interface CallOptions {
  body?: unknown
  /** PayPal-Request-Id: makes the call safe to repeat, so it is retried on 5xx and timeouts. */
  requestId?: string
  /** More headers (Orders v2's `Prefer`). */
  headers?: Record<string, string>
}

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

const TOKEN_PATH = '/v1/oauth2/token'

/**
 * No answer (timeout, connection refused), a 5xx, or a 409 (PayPal still runs an earlier
 * call with the same PayPal-Request-Id): the outcome is not known yet, and trying again
 * tells, for a call that is safe to repeat.
 */
function isTransient (response: HttpClientResponse | undefined): boolean {
  return response === undefined || response.statusCode >= 500 || response.statusCode === 409 || isRateLimited(response)
}

/**
 * 429 RATE_LIMIT_REACHED: PayPal refused the call before doing any work, so trying again after
 * a back-off is safe for every call, with or without a PayPal-Request-Id
 * (https://developer.paypal.com/api/rest/reference/rate-limiting/).
 */
function isRateLimited (response: HttpClientResponse | undefined): boolean {
  return response?.statusCode === 429
}

/** The longest Retry-After honoured: a longer wait would outlast what a buyer waits for. */
const MAX_RETRY_AFTER_MS = 5_000

/**
 * PayPal REST over the application's HTTP client, shared by the PayPal gateways: OAuth2 client-credentials tokens cached
 * until shortly before they expire (refreshed once on a 401), JSON calls, bounded retries
 * with backoff for 5xx answers and timeouts (only for calls that are safe to repeat), and
 * PayPal errors turned into coded provider errors. No secret ever reaches a log line.
 */
export class PaypalRestClient {
  readonly config: PaypalRestConfig
  readonly #http: HttpClient
  readonly #logger: Logger
  #token: { value: string, renewAt: number } | undefined
  /** The topics warnOnce() has logged. */
  readonly #warned = new Set<string>()
  #tokenRequest: Promise<string> | undefined
  /** How many access tokens this API asked PayPal for (visible for monitoring and tests). */
  tokenRequests = 0

  constructor (config: PaypalRestConfig, http: HttpClient, logger: Logger) {
    this.config = config
    this.#http = http
    this.#logger = logger
  }

  /**
   * Any REST call on this client's token, retries and error handling: what each gateway's own
   * API surface (paypal_rest's Payments v1, paypal_checkout's Orders v2) is built on.
   */
  request (method: string, path: string, options: CallOptions = {}): Promise<PaypalResource> {
    return this.#call(method, path, options)
  }

  /** Asks PayPal whether a webhook delivery is genuine; `rawEvent` is spliced in byte for byte. */
  async verifyWebhookSignature (fields: Record<string, string>, rawEvent: string): Promise<boolean> {
    const head = JSON.stringify({ ...fields, webhook_id: this.config.webhookId })
    const body = `${head.slice(0, -1)},"webhook_event":${rawEvent}}`
    const answer = await this.#call('POST', '/v1/notifications/verify-webhook-signature', { body: new RawJson(body) })
    return answer.verification_status === 'SUCCESS'
  }

  toJSON (): Record<string, unknown> {
    return { config: this.config.toJSON() }
  }

  async #call (method: string, path: string, options: CallOptions = {}): Promise<PaypalResource> {
    const body = options.body instanceof RawJson ? options.body.json : options.body === undefined ? undefined : JSON.stringify(options.body)
    const repeatable = method === 'GET' || options.requestId !== undefined
    const response = await this.#withRetries(this.config.attempts, (attempt) => this.#authorizedSend(method, path, body, options, attempt),
      repeatable ? isTransient : isRateLimited)
    if (response === undefined || response.statusCode >= 400) throw failure(response, path)
    return parseAnswer(response, path)
  }

  /** One attempt with the cached token; a 401 (it expired or was revoked early) gets one fresh token and one more try. */
  async #authorizedSend (method: string, path: string, body: string | undefined, options: CallOptions,
    attempt: number): Promise<HttpClientResponse | undefined> {
    const send = (token: string) => {
      const headers: Record<string, string> = { ...this.config.headers, ...options.headers, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }
      if (options.requestId !== undefined) headers['paypal-request-id'] = options.requestId
      return this.#send({ method, url: this.config.endpoint + path, headers, body }, path, attempt)
    }
    const token = await this.#accessToken()
    const response = await send(token)
    if (response?.statusCode !== 401) return response
    // Concurrent calls may have replaced it already.
    if (this.#token?.value === token) this.#token = undefined
    return await send(await this.#accessToken())
  }

  /** Bounded retries with backoff, for answers that leave the outcome open, of calls safe to repeat. */
  async #withRetries (attempts: number, send: (attempt: number) => Promise<HttpClientResponse | undefined>,
    retryable: (response: HttpClientResponse | undefined) => boolean = isTransient): Promise<HttpClientResponse | undefined> {
    let attempt = 1
    let response = await send(attempt)
    while (retryable(response) && attempt < attempts) {
      // With log.LogEnabled, the SDK-style lines already show each failed attempt.
      if (this.config.logLevel === undefined) {
        this.#logger.warn({ paypal: { gateway: this.config.gatewayName, attempt, status: response?.statusCode } }, 'paywire: PayPal call left its outcome open; trying again')
      }
      await this.#backoff(attempt, response)
      response = await send(++attempt)
    }
    return response
  }

  /** One HTTP exchange; undefined when it failed without an answer (timeout, refused connection). */
  async #send (request: { method: string, url: string, headers: Record<string, string>, body: string | undefined }, path: string,
    attempt: number): Promise<HttpClientResponse | undefined> {
    const started = performance.now()
    try {
      // Span and debug line of the exchange (engine); with log.LogEnabled, the SDK-style lines below replace the debug line.
      const call = { provider: 'PayPal', method: request.method, url: request.url, path, attempt, debugIdHeader: 'paypal-debug-id', log: this.config.logLevel === undefined }
      const response = await observeProviderCall(this.#logger, call,
        () => this.#http.send({ ...request, timeoutMs: this.config.timeoutMs, connectTimeoutMs: this.config.connectTimeoutMs }))
      const level = response.statusCode >= 500 ? 'warn' : 'info'
      this.#log(level, { method: request.method, path, status: response.statusCode, debugId: response.headers['paypal-debug-id'], attempt, ms: Math.round(performance.now() - started) }, 'PayPal call')
      return response
    } catch (error) {
      this.#log('warn', { method: request.method, path, attempt, error: (error as Error).name, ms: Math.round(performance.now() - started) }, 'PayPal call failed without an answer')
      return undefined
    }
  }

  async #accessToken (): Promise<string> {
    if (this.#token !== undefined && Date.now() < this.#token.renewAt) return this.#token.value
    // Concurrent calls share one token request.
    this.#tokenRequest ??= this.#requestToken().finally(() => { this.#tokenRequest = undefined })
    return await this.#tokenRequest
  }

  async #requestToken (): Promise<string> {
    this.tokenRequests++
    // Asking for a token changes nothing at PayPal: always safe to repeat.
    const response = await this.#withRetries(this.config.attempts, (attempt) => this.#send({
      method: 'POST',
      url: `${this.config.oauthEndpoint}${TOKEN_PATH}`,
      headers: { ...this.config.headers, authorization: this.config.basicAuthorization(), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: 'grant_type=client_credentials'
    }, TOKEN_PATH, attempt))
    if (response === undefined || response.statusCode !== 200) throw failure(response, TOKEN_PATH)
    const answer = parseAnswer(response, TOKEN_PATH)
    if (typeof answer.access_token !== 'string' || typeof answer.expires_in !== 'number') throw invalidAnswer(response, TOKEN_PATH)
    const lifetimeMs = answer.expires_in * 1000
    // Renew ahead of expiry (PayPal's SDK keeps a 120 s margin), sooner for short-lived tokens.
    this.#token = { value: answer.access_token, renewAt: Date.now() + lifetimeMs - Math.min(120_000, lifetimeMs / 10) }
    return answer.access_token
  }

  /** Exponential back-off with jitter, or the Retry-After PayPal asked for (in seconds, capped). */
  async #backoff (attempt: number, response: HttpClientResponse | undefined): Promise<void> {
    const base = this.config.retryBackoffMs * 2 ** (attempt - 1)
    const retryAfter = Number(response?.headers['retry-after'])
    const asked = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) : 0
    await sleep(Math.max(asked, base + Math.random() * base / 2))
  }

  /**
   * A warning logged the first time `topic` happens on this client only: a condition that holds on
   * every call (a permission the merchant's app lacks) is said once, not on each Sync.
   */
  warnOnce (topic: string, details: Record<string, unknown>, message: string): void {
    if (this.#warned.has(topic)) return
    this.#warned.add(topic)
    this.#logger.warn({ paypal: { gateway: this.config.gatewayName, ...details } }, message)
  }

  #log (level: LogLevel, details: Record<string, unknown>, message: string): void {
    const configured = this.config.logLevel
    if (configured === undefined || LEVEL_RANK[level] < LEVEL_RANK[configured]) return
    this.#logger[level]({ paypal: { gateway: this.config.gatewayName, ...details } }, message)
  }
}

/** A pre-serialized JSON body. */
class RawJson {
  readonly json: string
  constructor (json: string) {
    this.json = json
  }
}

function parseAnswer (response: HttpClientResponse, path: string): PaypalResource {
  if (response.body === '') return {}
  try {
    return JSON.parse(response.body)
  } catch {
    throw invalidAnswer(response, path)
  }
}

function invalidAnswer (response: HttpClientResponse, path: string): PaypalCallError {
  return callError(response, { name: 'INVALID_RESPONSE', message: `PayPal's answer for ${path} is not what the API describes` })
}

/** PayPal's error body (v1 name/message or OAuth error/error_description), or a transport failure. */
function failure (response: HttpClientResponse | undefined, path: string): PaypalCallError {
  let body: Record<string, unknown> = {}
  try {
    body = response === undefined || response.body === '' ? {} : JSON.parse(response.body)
  } catch {}
  const name = typeof body.name === 'string' ? body.name : typeof body.error === 'string' ? body.error : response === undefined ? 'NO_RESPONSE' : `HTTP_${response.statusCode}`
  const message = typeof body.message === 'string'
    ? body.message
    : typeof body.error_description === 'string' ? body.error_description : response === undefined ? `no answer from PayPal for ${path}` : `PayPal answered ${response.statusCode} for ${path}`
  const paypal: PaypalError = { name, message }
  if (typeof body.debug_id === 'string') paypal.debug_id = body.debug_id
  if (Array.isArray(body.details)) paypal.details = body.details
  if (typeof body.information_link === 'string') paypal.information_link = body.information_link
  if (Array.isArray(body.links)) paypal.links = body.links
  return callError(response, paypal)
}

function callError (response: HttpClientResponse | undefined, paypal: PaypalError): PaypalCallError {
  const debugId = paypal.debug_id ?? response?.headers['paypal-debug-id']
  if (debugId !== undefined) paypal.debug_id = debugId
  const status = response?.statusCode
  // No answer, a 5xx or a rate limit: PayPal did not say no, it could not say anything yet.
  const kind = status === undefined || status >= 500 || status === 429 ? 'provider_unavailable' : 'provider_refused'
  const error = providerError({ provider: 'PayPal', providerCode: paypal.name, message: paypal.message, debugId, kind }) as PaypalCallError
  error.httpStatus = response?.statusCode
  error.paypal = paypal
  return error
}
