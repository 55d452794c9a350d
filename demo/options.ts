import type { FastifyServerOptions } from 'fastify'
import { paywireLogSerializers } from 'paywire'
import type { PaypalCredentials } from './paypal.ts'
import { DemoLogController } from './request-log.ts'
import type { RateLimits } from './rate-limits.ts'
import type { StripeCredentials } from './stripe.ts'

/** What buildDemoShop() takes: npm start fills it from the environment (demo/environment.ts). */
export interface DemoShopOptions {
  /** Use Redis for tokens and payments. */
  redisUrl?: string
  /** Key prefix in Redis (tests use one per file). */
  redisKeyPrefix?: string
  /** Keep payments in PostgreSQL (migrated beforehand: npx paywire migrate); tokens too unless redisUrl is set. */
  databaseUrl?: string
  /** The PostgreSQL schema (default "paywire"). */
  databaseSchema?: string
  baseUrl?: string
  logger?: FastifyServerOptions['logger']
  /**
   * The PayPal gateways, "paypal" (paypal_rest, Payments v1) and "paypal-checkout"
   * (paypal_checkout, Orders v2): 'simulator' (default) runs the project's PayPal simulator in
   * process, so the whole redirect flow works offline; credentials use PayPal itself.
   */
  paypal?: false | 'simulator' | PaypalCredentials
  /**
   * The "stripe" gateway (hosted Checkout): 'simulator' (default) runs the project's Stripe
   * simulator in process; credentials use Stripe itself.
   */
  stripe?: false | 'simulator' | StripeCredentials
  /** Requests per minute and client address, by kind of route; false: no limits. */
  rateLimits?: false | Partial<RateLimits>
}

/**
 * Fastify's options for the shop: Paywire's log serializers (so errors its routes log are
 * redacted), and instead of Fastify's "incoming request"/"request completed" pair one line per
 * request saying what happened (demo/request-log.ts).
 */
export function serverOptions (options: DemoShopOptions): FastifyServerOptions {
  const logger = options.logger === undefined || options.logger === false || options.logger === true
    ? options.logger ?? false
    : { ...options.logger, serializers: { ...paywireLogSerializers, ...options.logger.serializers } }
  return { logger, logController: new DemoLogController(options.baseUrl) }
}
