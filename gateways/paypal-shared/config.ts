import type { X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseIni } from 'ini'
import { errorCodes } from '../../plugins/core/engine/index.ts'
import { parseCertificates } from './certificate-chain.ts'

/** PayPal's REST hosts (the current api-m names). */
export const PAYPAL_HOSTS = {
  sandbox: 'https://api-m.sandbox.paypal.com',
  live: 'https://api-m.paypal.com'
} as const

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

export interface PaypalRestOptions {
  gatewayName: string
  clientId: unknown
  clientSecret: unknown
  /** Directory holding sdk_config.ini. */
  configPath: unknown
  /** The same options as sdk_config.ini; wins over the file, as in PayPal's SDK. */
  config: unknown
  webhookId: unknown
  webhookVerification: unknown
  /** Seconds a webhook's transmission time may differ from now (default 300). */
  webhookMaxAge?: unknown
  /** PEM of the CA certificates offline verification trusts (default: Node's bundled roots). */
  webhookTrustAnchors?: unknown
}

export const DEFAULT_WEBHOOK_MAX_AGE_SECONDS = 300

/**
 * The resolved settings of one paypal_rest gateway. The client secret is kept in a
 * private field: it never shows in logs, errors, JSON or inspect() output.
 */
export class PaypalRestConfig {
  readonly gatewayName: string
  readonly clientId: string
  readonly #clientSecret: string
  readonly mode: 'sandbox' | 'live'
  /** Base URL of the REST API (service.EndPoint, else the mode's host). */
  readonly endpoint: string
  /** Base URL of the OAuth2 token call (oauth.EndPoint, else endpoint). */
  readonly oauthEndpoint: string
  readonly connectTimeoutMs: number
  readonly timeoutMs: number
  /** Attempts per call, the first included; only 5xx answers and timeouts are retried. */
  readonly attempts: number
  readonly retryBackoffMs: number
  readonly headers: Readonly<Record<string, string>>
  /** Undefined when log.LogEnabled is off. */
  readonly logLevel: LogLevel | undefined
  readonly webhookId: string
  readonly webhookVerification: 'online' | 'offline'
  /** Older (or later) transmissions are refused without asking PayPal; verified ones are remembered that long. */
  readonly webhookMaxAgeSeconds: number
  /** The CAs a webhook signing certificate must chain to (offline verification); undefined: Node's bundled roots. */
  readonly webhookTrustAnchors: readonly X509Certificate[] | undefined

  constructor (options: PaypalRestOptions) {
    const gateway = options.gatewayName
    this.gatewayName = gateway
    this.clientId = requiredString(gateway, 'client_id', options.clientId)
    this.#clientSecret = requiredString(gateway, 'client_secret', options.clientSecret)
    const sdk = { ...readSdkConfig(options.configPath), ...flatConfig(options.config) }

    const mode = String(sdk.mode ?? 'sandbox').toLowerCase()
    if (mode !== 'sandbox' && mode !== 'live') invalid('config.mode', 'must be "sandbox" or "live"')
    this.mode = mode
    this.endpoint = url('service.EndPoint', sdk['service.EndPoint']) ?? PAYPAL_HOSTS[mode]
    this.oauthEndpoint = url('oauth.EndPoint', sdk['oauth.EndPoint']) ?? this.endpoint
    this.connectTimeoutMs = seconds('http.ConnectionTimeOut', sdk['http.ConnectionTimeOut'] ?? sdk['http.CURLOPT_CONNECTTIMEOUT'], 10) * 1000
    this.timeoutMs = seconds('http.CURLOPT_TIMEOUT', sdk['http.CURLOPT_TIMEOUT'], 60) * 1000
    this.attempts = integer('http.Retry', sdk['http.Retry'], 2, 0, 10) + 1
    this.retryBackoffMs = integer('http.RetryBackoffMs', sdk['http.RetryBackoffMs'], 250, 0, 60_000)
    this.headers = Object.fromEntries(Object.entries(sdk)
      .filter(([key]) => key.startsWith('http.headers.'))
      .map(([key, value]) => [key.slice('http.headers.'.length), String(value)]))
    this.logLevel = logLevel(sdk)
    this.webhookId = typeof options.webhookId === 'string' ? options.webhookId : ''
    // PayPal refuses other ids with a 400 on every verification: caught here, at boot.
    if (this.webhookId !== '' && !/^[A-Za-z0-9]{1,50}$/.test(this.webhookId)) invalid('webhook_id', 'must be the id of the webhook subscription: up to 50 letters and digits')
    const maxAge = options.webhookMaxAge === undefined || options.webhookMaxAge === '' ? DEFAULT_WEBHOOK_MAX_AGE_SECONDS : Number(options.webhookMaxAge)
    if (!Number.isInteger(maxAge) || maxAge < 1 || maxAge > 86_400) invalid('webhook_max_age', 'must be a whole number of seconds from 1 to 86400')
    this.webhookMaxAgeSeconds = maxAge
    const verification = options.webhookVerification ?? 'online'
    if (verification !== 'online' && verification !== 'offline') invalid('webhook_verification', 'must be "online" or "offline"')
    this.webhookVerification = verification
    this.webhookTrustAnchors = trustAnchors(options.webhookTrustAnchors)
  }

  /** For the OAuth2 call only. */
  basicAuthorization (): string {
    return `Basic ${Buffer.from(`${this.clientId}:${this.#clientSecret}`).toString('base64')}`
  }

  toJSON (): Record<string, unknown> {
    return { gatewayName: this.gatewayName, clientId: this.clientId, clientSecret: '<redacted>', mode: this.mode, endpoint: this.endpoint }
  }

  [Symbol.for('nodejs.util.inspect.custom')] (): string {
    return `PaypalRestConfig ${JSON.stringify(this.toJSON())}`
  }
}

function invalid (option: string, problem: string): never {
  throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
}

function trustAnchors (value: unknown): X509Certificate[] | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const pem = Array.isArray(value) && value.every((entry) => typeof entry === 'string') ? value.join('\n') : value
  const certificates = typeof pem === 'string' ? parseCertificates(pem) : undefined
  return certificates ?? invalid('webhook_trust_anchors', 'must be PEM certificates (a string holding one or more, or a list of them)')
}

function requiredString (gateway: string, option: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(gateway, option)
  return value
}

/** sdk_config.ini is read without sections, as PayPal's SDK does: [Http], [Log]... are cosmetic. */
function readSdkConfig (configPath: unknown): Record<string, unknown> {
  if (configPath === undefined || configPath === null || configPath === '') return {}
  if (typeof configPath !== 'string') invalid('config_path', 'must be the path of the directory holding sdk_config.ini')
  const file = join(configPath, 'sdk_config.ini')
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    invalid('config_path', `cannot read ${file}`)
  }
  return flatConfig(parseIni(text))
}

/** Sections (and sections of sections, `[a.b]` in ini) are cosmetic: only the dotted key names count. */
function flatConfig (config: unknown): Record<string, unknown> {
  if (config === undefined || config === null) return {}
  if (typeof config !== 'object' || Array.isArray(config)) invalid('config', 'must be a map of SDK option names to values')
  const flat: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(config)) {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) Object.assign(flat, flatConfig(value))
    else flat[key] = value
  }
  return flat
}

function url (option: string, value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string' || !/^https?:\/\//.test(value) || !URL.canParse(value)) invalid(`config.${option}`, 'must be an absolute http(s) URL')
  return value.replace(/\/+$/, '')
}

function seconds (option: string, value: unknown, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) invalid(`config.${option}`, 'must be a positive number of seconds')
  return number
}

function integer (option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback
  const number = Number(value)
  if (!Number.isInteger(number) || number < min || number > max) invalid(`config.${option}`, `must be an integer from ${min} to ${max}`)
  return number
}

const LOG_LEVELS: Record<string, LogLevel> = {
  DEBUG: 'debug', FINE: 'info', INFO: 'info', NOTICE: 'info', WARN: 'warn', WARNING: 'warn', ERROR: 'error', CRITICAL: 'error', ALERT: 'error', EMERGENCY: 'error'
}

function logLevel (sdk: Record<string, unknown>): LogLevel | undefined {
  const enabled = sdk['log.LogEnabled']
  if (enabled !== true && enabled !== 'true' && enabled !== '1' && enabled !== 1) return undefined
  const level = String(sdk['log.LogLevel'] ?? 'INFO').toUpperCase()
  return LOG_LEVELS[level] ?? invalid('config.log.LogLevel', 'must be DEBUG, INFO, WARN or ERROR')
}
