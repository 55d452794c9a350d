import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * How often one client address may hit each kind of route per minute. Payment creation is
 * what costs (a provider call, stored records): it gets the tightest bound.
 */
export interface RateLimits {
  /** POST /checkout and POST /graphql. */
  checkout: number
  /** The token routes: capture, authorize, refund, cancel, sync, notify, done. */
  payment: number
  /** The gateway-wide webhook route (PayPal's deliveries). */
  webhook: number
  /** Everything else (the checkout page). */
  page: number
}

export const DEMO_RATE_LIMITS: Readonly<RateLimits> = { checkout: 20, payment: 120, webhook: 600, page: 300 }

/** What the buyer reads: what to do, not a countdown (the window is a minute). */
export const RATE_LIMITED_MESSAGE = 'Too many attempts; please wait a minute and try again.'

function routeKind (request: FastifyRequest): keyof RateLimits {
  const path = request.url.split('?')[0] as string
  if (path.startsWith('/payment/notify/unsafe/')) return 'webhook'
  if (path.startsWith('/payment/')) return 'payment'
  if (request.method === 'POST' && (path === '/checkout' || path === '/graphql')) return 'checkout'
  return 'page'
}

/** Per client address and kind of route. Register before the routes: its onRoute hook covers those registered after it. */
export async function addRateLimits (app: FastifyInstance, given: Partial<RateLimits> = {}): Promise<void> {
  const limits = { ...DEMO_RATE_LIMITS, ...given }
  await app.register(rateLimit, {
    timeWindow: '1 minute',
    max: (request) => limits[routeKind(request)],
    keyGenerator: (request) => `${routeKind(request)}:${request.ip}`,
    // Thrown to the route's error handler: the shop's pages or Paywire's buyer pages render it.
    errorResponseBuilder: (_request, context) => Object.assign(new Error(RATE_LIMITED_MESSAGE), { statusCode: context.statusCode, code: 'DEMO_ERR_RATE_LIMITED' })
  })
}
