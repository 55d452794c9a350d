/*
 * npm start's settings, read from the environment: each checked here, so a bad value is one
 * line naming the variable and what to put there, never a stack trace from deep inside a plugin.
 */
import { redactRedisUrl } from 'paywire/redis'
import type { PaypalCredentials } from './paypal.ts'
import type { StripeCredentials } from './stripe.ts'

/** An environment variable, with an empty value read as unset (`REDIS_URL= npm start` means no Redis). */
function env (name: string): string | undefined {
  const value = process.env[name]
  return value === '' ? undefined : value
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** A setting the shop cannot start with: printed as one line, without a stack. */
export class DemoConfigError extends Error {
  override name = 'DemoConfigError'
}

export interface DemoEnvironment {
  port: number
  host: string
  logLevel: string
  redisUrl: string | undefined
  databaseUrl: string | undefined
  databaseSchema: string | undefined
  baseUrl: string | undefined
  paypal: 'simulator' | PaypalCredentials
}

/** The demo's settings from its environment, each checked with a message naming the variable. */
export function readEnvironment (): DemoEnvironment {
  const portText = env('PORT') ?? '3000'
  const port = Number(portText)
  if (!/^\d{1,5}$/.test(portText) || port > 65535) throw new DemoConfigError(`PORT=${portText} is not a port number: use 0 to 65535 (0 picks a free one).`)
  const logLevel = env('LOG_LEVEL') ?? 'info'
  if (!LOG_LEVELS.includes(logLevel)) throw new DemoConfigError(`LOG_LEVEL=${logLevel} is not a log level: use one of ${LOG_LEVELS.join(', ')}.`)
  const redisUrl = env('REDIS_URL')
  if (redisUrl !== undefined && !/^rediss?:\/\//i.test(redisUrl)) {
    throw new DemoConfigError(`REDIS_URL must start with redis:// or rediss:// (like redis://127.0.0.1:6379), not ${redactRedisUrl(redisUrl).split(':')[0] ?? ''}:.`)
  }
  const databaseUrl = env('DATABASE_URL')
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new DemoConfigError(`DATABASE_URL must start with postgres:// or postgresql:// (like postgres://shop@127.0.0.1:5432/shop), not ${databaseUrl.split(':')[0] ?? ''}:.`)
  }
  const clientId = env('PAYPAL_CLIENT_ID')
  const clientSecret = env('PAYPAL_CLIENT_SECRET')
  if ((clientId === undefined) !== (clientSecret === undefined)) {
    throw new DemoConfigError(`${clientId === undefined ? 'PAYPAL_CLIENT_SECRET' : 'PAYPAL_CLIENT_ID'} is set without ${clientId === undefined ? 'PAYPAL_CLIENT_ID' : 'PAYPAL_CLIENT_SECRET'}: set both to use PayPal, or neither for the simulator.`)
  }
  return {
    port,
    host: env('HOST') ?? '127.0.0.1',
    logLevel,
    redisUrl,
    databaseUrl,
    databaseSchema: env('DATABASE_SCHEMA'),
    baseUrl: env('BASE_URL'),
    paypal: clientId !== undefined && clientSecret !== undefined
      ? { clientId, clientSecret, mode: env('PAYPAL_MODE') === 'live' ? 'live' : 'sandbox', webhookId: env('PAYPAL_WEBHOOK_ID'), checkoutWebhookId: env('PAYPAL_CHECKOUT_WEBHOOK_ID') }
      : 'simulator'
  }
}

const STRIPE_SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/
const STRIPE_WEBHOOK_SECRET = /^whsec_[A-Za-z0-9_+/=-]+$/

/**
 * The demo's Stripe from STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET: both, or neither for the
 * simulator. Each is checked by its shape only, and a message never repeats a value: a key
 * pasted into the wrong variable must not end up in a terminal's scrollback or a CI log.
 */
export function readStripeEnvironment (): 'simulator' | StripeCredentials {
  const secretKey = env('STRIPE_SECRET_KEY')
  const webhookSecret = env('STRIPE_WEBHOOK_SECRET')
  if (secretKey === undefined && webhookSecret === undefined) return 'simulator'
  if (secretKey === undefined || webhookSecret === undefined) {
    const [set, unset] = secretKey === undefined ? ['STRIPE_WEBHOOK_SECRET', 'STRIPE_SECRET_KEY'] : ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']
    throw new DemoConfigError(`${set} is set without ${unset}: set both to use Stripe (webhooks are how Stripe tells the shop about money), or neither for the simulator.`)
  }
  if (!STRIPE_SECRET_KEY.test(secretKey)) {
    throw new DemoConfigError(secretKey.startsWith('pk_')
      ? 'STRIPE_SECRET_KEY is a publishable key (pk_…): use the secret key (sk_test_… or sk_live_…) from Stripe\'s dashboard, Developers → API keys.'
      : 'STRIPE_SECRET_KEY is not a Stripe secret key: use sk_test_… or sk_live_… (or a restricted rk_…) from Stripe\'s dashboard, Developers → API keys.')
  }
  if (!webhookSecret.split(',').every((secret) => STRIPE_WEBHOOK_SECRET.test(secret.trim()))) {
    throw new DemoConfigError('STRIPE_WEBHOOK_SECRET is not a webhook signing secret: use the whsec_… of the endpoint for /payment/notify/unsafe/stripe (Developers → Webhooks), or several, comma-separated, while one is rolled.')
  }
  return { secretKey, webhookSecret }
}
