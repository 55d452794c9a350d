/*
 * How a shop uses Paywire, top to bottom: register the plugin with its storage, register the
 * gateways, a checkout route running the preparation procedure (store a Payment, create a
 * capture token, redirect the buyer), and ship on the payment event. `npm start` runs it on
 * embedded defaults (memory storage, the offline gateway, PayPal and Stripe through in-process
 * simulators). What only a demo needs (its pages, environment, rate limits, the simulators'
 * wiring) is in demo/.
 */
import { randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { Payment, paywire, type PaywirePluginOptions } from 'paywire'
import { offlineGateway } from 'paywire/gateways/offline'
import { paywireGraphql } from 'paywire/graphql'
import { paywirePostgres } from 'paywire/postgres'
import { paywireRedis } from 'paywire/redis'
import { CheckoutForm, addDemoFurniture, addPaypal, addStripe, checkoutPage, readCheckoutForm, serverOptions, startDemo, type DemoShopOptions } from './demo/index.ts'

export type { DemoShopOptions }

/** An order number no other checkout gets, even within one millisecond or across instances. */
function orderNumber (): string {
  return `DEMO-${Date.now().toString(36).toUpperCase()}-${randomBytes(5).toString('hex').toUpperCase()}`
}

export async function buildDemoShop (options: DemoShopOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(serverOptions(options)).withTypeProvider<TypeBoxTypeProvider>()
  await addDemoFurniture(app, options) // its pages, form parsing, rate limits

  // 1. Paywire, with its storage: memory unless Redis or PostgreSQL is given.
  const paywireOptions: PaywirePluginOptions = {
    baseUrl: options.baseUrl,
    gateways: { offline: { factory: 'offline' } },
    // Syncs, every minute, the payments a lost webhook or a buyer who never came back left behind (docs/operations.md).
    reconcile: true
  }
  if (options.redisUrl !== undefined) {
    await app.register(paywireRedis, { url: options.redisUrl, keyPrefix: options.redisKeyPrefix })
    paywireOptions.backend = app.paywireRedis
  }
  if (options.databaseUrl !== undefined) {
    await app.register(paywirePostgres, { connectionString: options.databaseUrl, schema: options.databaseSchema })
    paywireOptions.backend = app.paywirePostgres
    // With Redis too: payments in PostgreSQL, tokens and claims (the hot path) in Redis.
    if (options.redisUrl !== undefined) paywireOptions.tokenStorage = app.paywireRedis.createTokenStorage()
  }
  await app.register(paywire, paywireOptions)

  // 2. The gateways: each factory's plugin, then the shop's gateways built from it.
  await app.register(offlineGateway) // builds the "offline" gateway configured above
  if (options.paypal !== false) await addPaypal(app, options.paypal ?? 'simulator') // "paypal", "paypal-checkout"
  if (options.stripe !== false) await addStripe(app, options.stripe ?? 'simulator') // "stripe"
  // Another provider's gateways are added here, the same way.

  // 3. The shop ships on the event, not on the done page: a webhook or a Sync may settle a
  // payment long after the buyer left. Delivered at least once: a real shop deduplicates
  // by event.id (docs/events.md).
  app.paywire.on('payment.captured', function orderPaid (event) {
    app.log.info({ order: event.payment.number, event: event.id }, `order ${event.payment.number ?? event.payment.id} paid`)
  })
  app.paywire.on('payment.authorization_expiring', function captureSoon (event) {
    app.log.info({ order: event.payment.number, event: event.id }, `order ${event.payment.number ?? event.payment.id}: its authorization lapses at ${event.expiresAt}`)
  })
  for (const type of ['payment.canceled', 'payment.failed'] as const) {
    app.paywire.on(type, function orderNotPaid (event) {
      app.log.info({ order: event.payment.number, event: event.id }, `order ${event.payment.number ?? event.payment.id} not paid: payment ${event.status}`)
    })
  }

  // 4. GraphQL: createPayment for frontends; back-office operations stay denied (no authorize option).
  // No GraphiQL: its page loads its scripts from a CDN, and is blank without internet.
  await app.register(paywireGraphql, { mercurius: true })

  // 5. The checkout: the preparation procedure.
  app.post('/checkout', { schema: { body: CheckoutForm }, attachValidation: true }, async function checkout (request, reply) {
    const form = readCheckoutForm(request, app.paywire) // same origin, known gateway, a payable amount
    if ('refused' in form) {
      const { statusCode, message, values } = form.refused
      return reply.code(statusCode).type('text/html; charset=utf-8').send(checkoutPage(app.paywire.getGatewayNames(), message, values))
    }
    const { order } = form
    const payment = app.paywire.getStorage(Payment).create()
    payment.gatewayName = order.gateway
    payment.number = orderNumber()
    payment.totalAmount = order.totalAmount // integer minor units: 19.99 EUR is 1999
    payment.currencyCode = order.currency
    payment.description = order.description
    payment.clientEmail = order.email
    // Stores the payment and creates its capture token (done: the page the buyer returns to).
    const token = await app.paywire.prepareCapture(order.gateway, payment, 'done')
    return reply.redirect(token.targetUrl, 302)
  })

  return app
}

// npm start (demo/start.ts: settings from the environment, listen, stop on SIGINT/SIGTERM).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await startDemo(buildDemoShop)
