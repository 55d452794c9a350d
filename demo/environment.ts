/*
 * npm start's settings, read from the environment: each checked here, so a bad value is one
 * line naming the variable and what to put there, never a stack trace from deep inside a plugin.
 */
import { redactRedisUrl } from 'paywire/redis'
import type { PaypalCredentials } from './paypal.ts'

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
