import { createHash, createVerify, type X509Certificate } from 'node:crypto'
import { errorCodes, providerError, type HttpClient, type HttpRequestData } from '../../plugins/core/engine/index.ts'
import { bundledRootCertificates, chainsToAnchor, parseCertificates } from './certificate-chain.ts'
import type { PaypalRestClient } from './client.ts'
import type { PaypalRestConfig } from './config.ts'
import { signedMessage } from './webhook-signature.ts'

const HEADERS = {
  transmissionId: 'paypal-transmission-id',
  transmissionTime: 'paypal-transmission-time',
  transmissionSig: 'paypal-transmission-sig',
  certUrl: 'paypal-cert-url',
  authAlgo: 'paypal-auth-algo'
} as const

type Transmission = Record<keyof typeof HEADERS, string>

/**
 * The shapes PayPal's verify endpoint accepts (webhooks v1: auth_algo ≤100 alphanumerics,
 * cert_url ≤500, transmission_id ≤50, transmission_sig ≤500, transmission_time ≤100):
 * anything else is refused here, without a call, instead of PayPal answering 400.
 */
const SHAPES: Record<keyof Transmission, RegExp> = {
  transmissionId: /^[A-Za-z0-9_-]{1,50}$/,
  transmissionTime: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/,
  transmissionSig: /^(?=.{16,500}$)[A-Za-z0-9+/]+={0,2}$/,
  certUrl: /^https?:\/\/\S{1,492}$/,
  authAlgo: /^[A-Za-z0-9]{1,100}$/
}

/** How many verified transmissions a verifier remembers at most (each one cost a PayPal call). */
export const MAX_REMEMBERED_TRANSMISSIONS = 10_000

interface Remembered {
  fingerprint: string
  expiresAt: number
}

export interface WebhookVerifierOptions {
  /** The clock (ms); tests move it. Default Date.now. */
  now?: () => number
}

/**
 * Is this webhook delivery really from PayPal, for our subscription (webhook_id)? Either
 * PayPal's verify endpoint says so ("online", the default), or the signature checks out
 * against PayPal's certificate ("offline": CRC32 of the raw body, SHA256withRSA). Nothing
 * in a delivery is trusted before this answers true.
 */
export class PaypalWebhookVerifier {
  readonly config: PaypalRestConfig
  readonly #api: PaypalRestClient
  readonly #http: HttpClient
  readonly #certificates = new Map<string, Promise<X509Certificate[] | undefined>>()
  /** Verified transmissions by id, until their time falls out of the window: a replay costs nothing. */
  readonly #verified = new Map<string, Remembered>()
  readonly #now: () => number

  constructor (config: PaypalRestConfig, api: PaypalRestClient, http: HttpClient, options: WebhookVerifierOptions = {}) {
    this.config = config
    this.#api = api
    this.#http = http
    this.#now = options.now ?? Date.now
  }

  /**
   * Cheap checks first, so a forged delivery costs no call to PayPal: the five headers in
   * PayPal's shapes, a certificate URL of PayPal's, a JSON object body, a transmission time
   * within webhook_max_age of now. A transmission already verified is answered from memory
   * (the same bytes and signature: true; anything else under its id: false).
   */
  async verify (request: HttpRequestData): Promise<boolean> {
    if (this.config.webhookId === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(this.config.gatewayName, 'webhook_id')
    const transmission = readTransmission(request.headers)
    if (transmission === undefined || !this.#trustedCertUrl(transmission.certUrl) || !isJsonObject(request.content)) return false
    const now = this.#now()
    const sentAt = Date.parse(transmission.transmissionTime)
    const windowMs = this.config.webhookMaxAgeSeconds * 1000
    if (!Number.isFinite(sentAt) || Math.abs(now - sentAt) > windowMs) return false
    const fingerprint = createHash('sha256')
      .update(`${transmission.transmissionTime}|${transmission.transmissionSig}|${transmission.certUrl}|${transmission.authAlgo}|`)
      .update(request.content)
      .digest('base64url')
    const remembered = this.#verified.get(transmission.transmissionId)
    if (remembered !== undefined && remembered.expiresAt > now) return remembered.fingerprint === fingerprint
    const genuine = this.config.webhookVerification === 'online'
      ? await this.#api.verifyWebhookSignature({
        auth_algo: transmission.authAlgo,
        cert_url: transmission.certUrl,
        transmission_id: transmission.transmissionId,
        transmission_sig: transmission.transmissionSig,
        transmission_time: transmission.transmissionTime
      }, request.content)
      : await this.#verifyOffline(transmission, request.content)
    if (genuine) this.#remember(transmission.transmissionId, { fingerprint, expiresAt: sentAt + windowMs })
    return genuine
  }

  #remember (transmissionId: string, entry: Remembered): void {
    const now = this.#now()
    for (const [id, remembered] of this.#verified) {
      // Oldest first: expired ones go, and the oldest when full.
      if (remembered.expiresAt > now && this.#verified.size < MAX_REMEMBERED_TRANSMISSIONS) break
      this.#verified.delete(id)
    }
    this.#verified.set(transmissionId, entry)
  }

  async #verifyOffline (transmission: Transmission, rawBody: string): Promise<boolean> {
    if (transmission.authAlgo !== 'SHA256withRSA') return false
    const message = signedMessage(transmission.transmissionId, transmission.transmissionTime, this.config.webhookId, rawBody)
    const chain = await this.#certificate(transmission.certUrl)
    // The URL's host is not enough: the certificate must chain to a trusted CA and be valid now (checked per delivery, as time moves on).
    if (chain === undefined || !chainsToAnchor(chain, this.config.webhookTrustAnchors ?? bundledRootCertificates(), this.#now())) return false
    return createVerify('RSA-SHA256').update(message).verify((chain[0] as X509Certificate).publicKey, transmission.transmissionSig, 'base64')
  }

  /** Certificates only from PayPal (or from the configured endpoint, which is how a simulator is trusted). */
  #trustedCertUrl (url: string): boolean {
    if (!URL.canParse(url)) return false
    const parsed = new URL(url)
    if (url.startsWith(`${this.config.endpoint}/`)) return true
    return parsed.protocol === 'https:' && (parsed.hostname === 'paypal.com' || parsed.hostname.endsWith('.paypal.com'))
  }

  /** Downloaded once per URL (the signing certificate, then the CAs PayPal bundles with it); only certificates are kept, so a failed download is tried again by the next delivery. */
  #certificate (url: string): Promise<X509Certificate[] | undefined> {
    let certificate = this.#certificates.get(url)
    if (certificate === undefined) {
      certificate = this.#download(url)
      this.#certificates.set(url, certificate)
      certificate.then((found) => { if (found === undefined) this.#certificates.delete(url) }, () => this.#certificates.delete(url))
    }
    return certificate
  }

  /** Undefined when there is no certificate at that URL (the delivery cannot be genuine); throws when PayPal could not answer. */
  async #download (url: string): Promise<X509Certificate[] | undefined> {
    const unavailable = (code: string) => providerError({ provider: 'PayPal', providerCode: code, message: 'the webhook signing certificate could not be downloaded' })
    let response
    try {
      response = await this.#http.send({ method: 'GET', url, timeoutMs: this.config.timeoutMs, connectTimeoutMs: this.config.connectTimeoutMs })
    } catch {
      throw unavailable('NO_RESPONSE')
    }
    if (response.statusCode >= 500) throw unavailable(`HTTP_${response.statusCode}`)
    if (response.statusCode !== 200) return undefined
    return parseCertificates(response.body)
  }
}

function isJsonObject (content: string): boolean {
  try {
    const parsed: unknown = JSON.parse(content)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
  } catch {
    return false
  }
}

function readTransmission (headers: HttpRequestData['headers']): Transmission | undefined {
  const values: Partial<Transmission> = {}
  for (const [field, header] of Object.entries(HEADERS) as Array<[keyof Transmission, string]>) {
    const value = headers[header]
    if (typeof value !== 'string' || !SHAPES[field].test(value)) return undefined
    values[field] = value
  }
  return values as Transmission
}
