/*
 * The demo's Stripe: the "stripe" gateway (hosted Checkout). With a secret key and a webhook
 * signing secret it uses Stripe itself; without, the project's Stripe simulator, started in this
 * process, so paying, declines, 3-D Secure and the signed webhooks all work offline.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { stripeGateway, type StripeGatewayOptions } from 'paywire/gateways/stripe'
import { buildStripeSimulator, type StripeSimulator } from 'paywire/stripe-simulator'

declare module 'fastify' {
  interface FastifyInstance {
    /** The demo's in-process Stripe simulator (stripe: 'simulator' only). */
    stripeSimulator?: StripeSimulator
  }
}

export interface StripeCredentials {
  /** `sk_test_…` or `sk_live_…` (or a restricted `rk_…`). */
  secretKey: string
  /** The webhook endpoint's signing secret (`whsec_…`); several, comma-separated, while one is rolled. */
  webhookSecret: string
}

/**
 * What the notify URL subscribes to: the events the gateway acts on (gateways/stripe/README.md,
 * "Webhooks"), so the shop is not sent the rest of the account's traffic. With real Stripe,
 * subscribe the dashboard's endpoint to the same list.
 */
export const STRIPE_WEBHOOK_EVENTS = [
  'checkout.session.completed', 'checkout.session.expired', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed',
  'payment_intent.succeeded', 'payment_intent.amount_capturable_updated', 'payment_intent.payment_failed', 'payment_intent.canceled',
  'charge.refunded', 'charge.refund.updated', 'refund.failed', 'charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed'
] as const

const GATEWAY = 'stripe'
/** How often the in-process simulator looks for retries and expiries that fell due. */
export const SCHEDULE_MS = 1000

/** Registers the stripe gateway factory and the shop's "stripe" gateway. */
export async function addStripe (app: FastifyInstance, stripe: 'simulator' | StripeCredentials): Promise<void> {
  await app.register(stripeGateway)
  if (stripe !== 'simulator') {
    app.paywire.addGateway(GATEWAY, { factory: 'stripe', secret_key: stripe.secretKey, webhook_secrets: stripe.webhookSecret } satisfies StripeGatewayOptions)
    return
  }
  // Fresh per process: nothing but this shop can call the simulator or sign its deliveries.
  const secretKey = `sk_test_demo${randomBytes(16).toString('hex')}`
  const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`
  const simulator = buildStripeSimulator({ apiKeys: [secretKey] })
  await simulator.listen({ port: 0, host: '127.0.0.1' })
  // The simulator runs what falls due (webhook retries, session expiry) only when its clock moves,
  // which tests do by hand; a shop left running needs Stripe's schedule to follow real time.
  const schedule = setInterval(() => { simulator.simulator.clock.advance(0) }, SCHEDULE_MS).unref()
  app.addHook('onClose', async function closeStripeSimulator () {
    clearInterval(schedule)
    await simulator.close()
  })
  app.decorate('stripeSimulator', simulator)
  const { port } = new URL(simulator.listeningOrigin)
  app.paywire.addGateway(GATEWAY, {
    factory: 'stripe', secret_key: secretKey, webhook_secrets: webhookSecret, host: '127.0.0.1', port: Number(port), protocol: 'http'
  } satisfies StripeGatewayOptions)
  // The endpoint needs the shop's address: subscribed once it listens, as one does in Stripe's dashboard.
  app.addHook('onListen', function subscribeStripeWebhooks () {
    const url = `${app.listeningOrigin}/payment/notify/unsafe/${GATEWAY}`
    simulator.simulator.webhooks.subscribe({ url, enabledEvents: STRIPE_WEBHOOK_EVENTS, secret: webhookSecret })
  })
}
