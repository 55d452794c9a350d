import { createVerify, X509Certificate } from 'node:crypto'
import { errorCodes, providerError, type HttpClient, type HttpRequestData } from '../../plugins/core/engine/index.ts'
import type { PaypalRestApi } from './api.ts'
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
 * Is this webhook delivery really from PayPal, for our subscription (webhook_id)? Either
 * PayPal's verify endpoint says so ("online", the default), or the signature checks out
 * against PayPal's certificate ("offline": CRC32 of the raw body, SHA256withRSA). Nothing
 * in a delivery is trusted before this answers true.
 */
export class PaypalWebhookVerifier {
  readonly config: PaypalRestConfig
  readonly #api: PaypalRestApi
  readonly #http: HttpClient
  readonly #certificates = new Map<string, Promise<X509Certificate | undefined>>()

  constructor (config: PaypalRestConfig, api: PaypalRestApi, http: HttpClient) {
    this.config = config
    this.#api = api
    this.#http = http
  }

  async verify (request: HttpRequestData): Promise<boolean> {
    if (this.config.webhookId === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(this.config.gatewayName, 'webhook_id')
    const transmission = readTransmission(request.headers)
    if (transmission === undefined || !isJsonObject(request.content)) return false
    if (this.config.webhookVerification === 'online') {
      return await this.#api.verifyWebhookSignature({
        auth_algo: transmission.authAlgo,
        cert_url: transmission.certUrl,
        transmission_id: transmission.transmissionId,
        transmission_sig: transmission.transmissionSig,
        transmission_time: transmission.transmissionTime
      }, request.content)
    }
    return await this.#verifyOffline(transmission, request.content)
  }

  async #verifyOffline (transmission: Transmission, rawBody: string): Promise<boolean> {
    if (transmission.authAlgo !== 'SHA256withRSA' || !this.#trustedCertUrl(transmission.certUrl)) return false
    const message = signedMessage(transmission.transmissionId, transmission.transmissionTime, this.config.webhookId, rawBody)
    const certificate = await this.#certificate(transmission.certUrl)
    return certificate !== undefined && createVerify('RSA-SHA256').update(message).verify(certificate.publicKey, transmission.transmissionSig, 'base64')
  }

  /** Certificates only from PayPal (or from the configured endpoint, which is how a simulator is trusted). */
  #trustedCertUrl (url: string): boolean {
    if (!URL.canParse(url)) return false
    const parsed = new URL(url)
    if (url.startsWith(`${this.config.endpoint}/`)) return true
    return parsed.protocol === 'https:' && (parsed.hostname === 'paypal.com' || parsed.hostname.endsWith('.paypal.com'))
  }

  /** Downloaded once per URL; only certificates are kept, so a failed download is tried again by the next delivery. */
  #certificate (url: string): Promise<X509Certificate | undefined> {
    let certificate = this.#certificates.get(url)
    if (certificate === undefined) {
      certificate = this.#download(url)
      this.#certificates.set(url, certificate)
      certificate.then((found) => { if (found === undefined) this.#certificates.delete(url) }, () => this.#certificates.delete(url))
    }
    return certificate
  }

  /** Undefined when there is no certificate at that URL (the delivery cannot be genuine); throws when PayPal could not answer. */
  async #download (url: string): Promise<X509Certificate | undefined> {
    const unavailable = (code: string) => providerError({ provider: 'PayPal', providerCode: code, message: 'the webhook signing certificate could not be downloaded' })
    let response
    try {
      response = await this.#http.send({ method: 'GET', url, timeoutMs: this.config.timeoutMs, connectTimeoutMs: this.config.connectTimeoutMs })
    } catch {
      throw unavailable('NO_RESPONSE')
    }
    if (response.statusCode >= 500) throw unavailable(`HTTP_${response.statusCode}`)
    if (response.statusCode !== 200) return undefined
    try {
      return new X509Certificate(response.body)
    } catch {
      return undefined
    }
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
    if (typeof value !== 'string' || value === '') return undefined
    values[field] = value
  }
  return values as Transmission
}
