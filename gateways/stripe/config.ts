import Stripe from 'stripe'
import { errorCodes } from '../../plugins/core/engine/index.ts'
import { closestName } from '../../plugins/core/engine/suggest.ts'
import { PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH } from './errors.ts'

/** The options of a stripe gateway, by the name a user writes them (`secret_key`, or `stripe.secret_key`). */
export const STRIPE_OPTION_NAMES = [
  'secret_key', 'webhook_secrets', 'webhook_tolerance', 'publishable_key', 'api_version', 'mode',
  'host', 'port', 'protocol', 'max_network_retries', 'timeout_ms'
] as const

export type StripeOptionName = (typeof STRIPE_OPTION_NAMES)[number]

/** Stripe's own default (https://docs.stripe.com/webhooks#verify-official-libraries): 5 minutes. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300
/** The SDK's defaults (https://github.com/stripe/stripe-node#configuration). */
export const DEFAULT_MAX_NETWORK_RETRIES = 2
export const DEFAULT_TIMEOUT_MS = 80_000

export type StripeMode = 'test' | 'live'

const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/
const PUBLISHABLE_KEY = /^pk_(test|live)_[A-Za-z0-9_]+$/
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9_+/=-]+$/
const API_VERSION = /^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/

/**
 * The resolved settings of one stripe gateway, checked when the gateway is built (app.ready()).
 * The secret key and the webhook secrets live in private fields: they never show in logs,
 * errors, JSON or inspect() output.
 */
export class StripeConfig {
  readonly gatewayName: string
  readonly mode: StripeMode
  readonly apiVersion: string
  readonly publishableKey: string | undefined
  readonly webhookToleranceSeconds: number
  readonly maxNetworkRetries: number
  readonly timeoutMs: number
  /** Only for the simulator: where the API is instead of api.stripe.com. */
  readonly host: string | undefined
  readonly port: number | undefined
  readonly protocol: 'http' | 'https' | undefined
  readonly #secretKey: string
  readonly #webhookSecrets: readonly string[]

  /** `options` by option name; `unknown`: other names given under the gateway's prefix (misspelt ones). */
  constructor (gatewayName: string, options: Partial<Record<StripeOptionName, unknown>>, unknown: readonly string[] = []) {
    this.gatewayName = gatewayName
    const invalid = (option: string, problem: string): never => {
      throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(`${gatewayName}.${option}`, problem)
    }
    for (const name of unknown) {
      const near = closestName(name, STRIPE_OPTION_NAMES)
      invalid(name, `is not an option of the stripe gateway${near === undefined ? '' : ` (did you mean ${near}?)`}; its options: ${STRIPE_OPTION_NAMES.join(', ')}`)
    }
    const secret = options.secret_key
    if (typeof secret !== 'string' || secret.trim() === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(gatewayName, 'secret_key')
    if (!SECRET_KEY.test(secret)) {
      invalid('secret_key', secret.startsWith('pk_')
        ? 'is a publishable key (pk_…): give the secret key (sk_test_…, sk_live_…), and the publishable key as publishable_key'
        : 'must be a Stripe secret key (sk_test_…, sk_live_…) or a restricted key (rk_test_…, rk_live_…)')
    }
    this.#secretKey = secret
    this.mode = secret.includes('_live_') ? 'live' : 'test'
    const mismatch = (detail: string): never => { throw new PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH(gatewayName, detail) }
    const mode = blank(options.mode) ? undefined : options.mode
    if (mode !== undefined && mode !== 'test' && mode !== 'live') invalid('mode', 'must be "test" or "live" (it is the secret key\'s: leave it out)')
    if (mode !== undefined && mode !== this.mode) mismatch(`mode is "${mode as string}" but secret_key is a ${this.mode} key`)

    this.publishableKey = blank(options.publishable_key) ? undefined : options.publishable_key as string
    if (this.publishableKey !== undefined) {
      if (typeof this.publishableKey !== 'string' || !PUBLISHABLE_KEY.test(this.publishableKey)) invalid('publishable_key', 'must be a Stripe publishable key (pk_test_…, pk_live_…)')
      if (!this.publishableKey.startsWith(`pk_${this.mode}_`)) mismatch(`publishable_key is not a ${this.mode} key like secret_key`)
    }

    this.#webhookSecrets = webhookSecrets(options.webhook_secrets, invalid)
    this.webhookToleranceSeconds = integer(options.webhook_tolerance, DEFAULT_WEBHOOK_TOLERANCE_SECONDS, 1, 86_400, () => invalid('webhook_tolerance', 'must be a whole number of seconds from 1 to 86400'))
    this.maxNetworkRetries = integer(options.max_network_retries, DEFAULT_MAX_NETWORK_RETRIES, 0, 10, () => invalid('max_network_retries', 'must be a whole number from 0 to 10'))
    this.timeoutMs = integer(options.timeout_ms, DEFAULT_TIMEOUT_MS, 1, 600_000, () => invalid('timeout_ms', 'must be a whole number of milliseconds from 1 to 600000'))

    const version = blank(options.api_version) ? Stripe.API_VERSION : options.api_version
    if (typeof version !== 'string' || !API_VERSION.test(version)) invalid('api_version', 'must be a Stripe API version like "2026-10-28.endive"')
    this.apiVersion = version as string

    this.host = blank(options.host) ? undefined : options.host as string
    if (this.host !== undefined && (typeof this.host !== 'string' || !/^[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/.test(this.host))) invalid('host', 'must be a host name or an IP address, without scheme or port')
    this.port = blank(options.port) ? undefined : integer(options.port, 0, 1, 65_535, () => invalid('port', 'must be a port number from 1 to 65535'))
    const protocol = blank(options.protocol) ? undefined : options.protocol
    if (protocol !== undefined && protocol !== 'http' && protocol !== 'https') invalid('protocol', 'must be "http" or "https"')
    this.protocol = protocol as StripeConfig['protocol']
    if (this.mode === 'live' && (this.host !== undefined || this.port !== undefined || this.protocol !== undefined)) {
      mismatch('host, port and protocol are for the simulator, and secret_key is a live key')
    }
  }

  /** For the SDK's Authorization header only. */
  secretKey (): string {
    return this.#secretKey
  }

  /** Every secret a delivery may be signed with (the current one and those being rolled). */
  webhookSecrets (): readonly string[] {
    return this.#webhookSecrets
  }

  toJSON (): Record<string, unknown> {
    return {
      gatewayName: this.gatewayName,
      mode: this.mode,
      apiVersion: this.apiVersion,
      secretKey: '<redacted>',
      webhookSecrets: this.#webhookSecrets.map(() => '<redacted>'),
      ...(this.publishableKey === undefined ? {} : { publishableKey: this.publishableKey }),
      ...(this.host === undefined ? {} : { host: this.host, port: this.port, protocol: this.protocol })
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')] (): string {
    return `StripeConfig ${JSON.stringify(this.toJSON())}`
  }
}

function blank (value: unknown): boolean {
  return value === undefined || value === null || value === ''
}

function integer (value: unknown, fallback: number, min: number, max: number, fail: () => never): number {
  if (blank(value)) return fallback
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) fail()
  return number as number
}

function webhookSecrets (value: unknown, invalid: (option: string, problem: string) => never): string[] {
  if (blank(value)) return []
  const list = typeof value === 'string' ? value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '') : value
  if (!Array.isArray(list) || list.some((entry) => typeof entry !== 'string' || !WEBHOOK_SECRET.test(entry))) {
    invalid('webhook_secrets', 'must be the signing secret of the webhook endpoint (whsec_…), or a list of them while one is rolled')
  }
  return [...new Set(list as string[])]
}
