/*
 * The demo shop: `npm start`. A checkout page that runs Paywire's preparation procedure
 * (store a Payment, create a capture token, redirect the buyer) and the plugin's payment
 * routes. Embedded defaults: memory storage and the offline gateway; REDIS_URL switches
 * tokens and payments to Redis, DATABASE_URL payments (and, without Redis, tokens) to
 * PostgreSQL.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import formbody from '@fastify/formbody'
import rateLimit from '@fastify/rate-limit'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { offlineGateway } from 'paywire/gateways/offline'
import { paypalCheckoutGateway } from 'paywire/gateways/paypal-checkout'
import { paypalRestGateway } from 'paywire/gateways/paypal-rest'
import { buildPaypalSimulator, type PaypalSimulator } from 'paywire/paypal-simulator'
import { Payment, escapeHtml, paywire, paywireLogSerializers, parseToMinorUnits, prefersHtml, type PaywirePluginOptions } from 'paywire'
import { paywirePostgres } from 'paywire/postgres'
import { paywireRedis, redactRedisUrl } from 'paywire/redis'
import { paywireGraphql } from 'paywire/graphql'

export interface DemoShopOptions {
  /** Use Redis for tokens and payments. */
  redisUrl?: string
  /** Key prefix in Redis (tests use one per file). */
  redisKeyPrefix?: string
  /** Keep payments in PostgreSQL (migrated beforehand: npm run migrate); tokens too unless redisUrl is set. */
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
  /** Requests per minute and client address, by kind of route; false: no limits. */
  rateLimits?: false | Partial<RateLimits>
}

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

function routeKind (request: FastifyRequest): keyof RateLimits {
  const path = request.url.split('?')[0] as string
  if (path.startsWith('/payment/notify/unsafe/')) return 'webhook'
  if (path.startsWith('/payment/')) return 'payment'
  if (request.method === 'POST' && (path === '/checkout' || path === '/graphql')) return 'checkout'
  return 'page'
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The demo's in-process PayPal simulator (paypal: 'simulator' only). */
    paypalSimulator?: PaypalSimulator
  }
}

export interface PaypalCredentials {
  clientId: string
  clientSecret: string
  mode?: 'sandbox' | 'live'
  webhookId?: string
  /** The webhook id for the "paypal-checkout" gateway's notify URL. */
  checkoutWebhookId?: string
}

const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF']

export const CheckoutForm = Type.Object({
  amount: Type.String({ pattern: '^\\s*\\d{1,12}([.,]\\d{1,3})?\\s*$' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  gateway: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 127 })),
  email: Type.Optional(Type.String({ maxLength: 254 }))
})
export type CheckoutForm = Static<typeof CheckoutForm>

export interface CheckoutValues {
  amount: string
  currency: string
  gateway: string
  description: string
}

const DEFAULT_VALUES: CheckoutValues = { amount: '19.99', currency: 'EUR', gateway: '', description: 'Demo order' }

/** The form as the buyer left it: after an error, "Pay" again must charge what they typed. */
function checkoutPage (gateways: string[], error = '', values: CheckoutValues = DEFAULT_VALUES): string {
  const options = (list: string[], chosen: string) => list.map((value) =>
    `<option${value === chosen ? ' selected' : ''}>${escapeHtml(value)}</option>`).join('')
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="UTF-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Paywire demo shop</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
label{display:block;margin-top:1rem}input,select,button{font-size:1rem;padding:.4rem}
.error{color:#a00;border:1px solid #a00;padding:.5rem}</style></head>
<body><main>
<h1>Paywire demo shop</h1>
${error === '' ? '' : `<p class="error" role="alert">${escapeHtml(error)}</p>`}
<form method="post" action="/checkout">
<label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal" value="${escapeHtml(values.amount)}" required>
<label for="currency">Currency</label><select id="currency" name="currency">${options(CURRENCIES, values.currency)}</select>
<label for="gateway">Pay with</label><select id="gateway" name="gateway">${options(gateways, values.gateway)}</select>
<label for="description">Description</label><input id="description" name="description" value="${escapeHtml(values.description)}">
<p><button type="submit">Pay</button></p>
</form>
</main></body></html>`
}

/** An order number no other checkout gets, even within one millisecond or across instances. */
function orderNumber (): string {
  return `DEMO-${Date.now().toString(36).toUpperCase()}-${randomBytes(5).toString('hex').toUpperCase()}`
}

const INTERNAL_MESSAGE = 'Something went wrong on our side; nothing was charged. Please try again.'

/**
 * The shop's own error answers: client mistakes keep their message, anything else is logged
 * and answered without internals (a Redis or script error never reaches the page).
 */
function demoErrorHandler (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500
  if (statusCode >= 500) request.log.error({ err: error }, 'demo shop: request failed')
  const message = statusCode >= 500 ? INTERNAL_MESSAGE : error.message
  reply.code(statusCode)
  if (!prefersHtml(request)) return reply.send({ statusCode, code: statusCode >= 500 ? 'DEMO_ERR_INTERNAL' : error.code ?? 'DEMO_ERR_REQUEST', message })
  return reply.type('text/html; charset=utf-8').send(checkoutPage(this.paywire.getGatewayNames(), message))
}

/**
 * Cross-site form posts are refused: a browser names the page's origin in Origin (and
 * Sec-Fetch-Site) on a POST, and another site's page must not start a payment here.
 */
function sameOrigin (request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false
  const origin = request.headers.origin
  return origin === undefined || origin === `${request.protocol}://${request.host}`
}

export async function buildDemoShop (options: DemoShopOptions = {}): Promise<FastifyInstance> {
  // The shop's own logger uses Paywire's serializers too: errors its routes log are redacted.
  const logger = options.logger === undefined || options.logger === false || options.logger === true
    ? options.logger ?? false
    : { ...options.logger, serializers: { ...paywireLogSerializers, ...options.logger.serializers } }
  const app = Fastify({ logger }).withTypeProvider<TypeBoxTypeProvider>()
  app.setErrorHandler(demoErrorHandler)
  if (options.rateLimits !== false) {
    const limits = { ...DEMO_RATE_LIMITS, ...options.rateLimits }
    // Registered before the payment routes, so its onRoute hook covers them too.
    await app.register(rateLimit, {
      timeWindow: '1 minute',
      max: (request) => limits[routeKind(request)],
      keyGenerator: (request) => `${routeKind(request)}:${request.ip}`
    })
  }
  await app.register(formbody)
  const paywireOptions: PaywirePluginOptions = {
    baseUrl: options.baseUrl,
    gateways: { offline: { factory: 'offline' } }
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
  // The shop ships on the event, not on the done page: a webhook or a Sync may settle a
  // payment long after the buyer left. Delivered at least once: a real shop deduplicates
  // by event.id (docs/events.md).
  app.paywire.on('payment.captured', function orderPaid (event) {
    app.log.info({ order: event.payment.number, event: event.id }, `order ${event.payment.number ?? event.payment.id} paid`)
  })
  await app.register(offlineGateway)
  // POST /graphql: createPayment for frontends; back-office operations stay denied (no authorize option).
  // No GraphiQL: its page loads its scripts from a CDN, and is blank without internet.
  await app.register(paywireGraphql, { mercurius: true })
  if (options.paypal !== false) await addPaypal(app, options.paypal ?? 'simulator')

  app.get('/', async function checkoutPageRoute (_request, reply) {
    return reply.type('text/html; charset=utf-8').send(checkoutPage(app.paywire.getGatewayNames()))
  })

  app.post('/checkout', {
    schema: { body: CheckoutForm },
    attachValidation: true
  }, async function checkoutRoute (request, reply) {
    const given = request.body as Partial<Record<keyof CheckoutValues, unknown>> | undefined
    const text = (value: unknown, fallback: string) => typeof value === 'string' ? value.slice(0, 256) : fallback
    const values: CheckoutValues = {
      amount: text(given?.amount, ''),
      currency: text(given?.currency, DEFAULT_VALUES.currency),
      gateway: text(given?.gateway, ''),
      description: text(given?.description, '')
    }
    const page = (status: number, message: string) =>
      reply.code(status).type('text/html; charset=utf-8').send(checkoutPage(app.paywire.getGatewayNames(), message, values))
    if (!sameOrigin(request)) return page(403, 'This form can only be sent from the shop\'s own page.')
    if (request.validationError !== undefined) return page(400, 'Please enter an amount like 19.99 and choose a currency.')
    const form = request.body
    if (!app.paywire.hasGateway(form.gateway)) return page(400, `Unknown payment method "${form.gateway}".`)
    let totalAmount: number
    try {
      totalAmount = parseToMinorUnits(form.amount.trim().replace(',', '.'), form.currency)
    } catch {
      return page(400, `${form.amount} is not a valid amount in ${form.currency}.`)
    }
    // The preparation procedure: store the payment, create a capture token, redirect.
    const storage = app.paywire.getStorage(Payment)
    const payment = storage.create()
    payment.gatewayName = form.gateway
    payment.number = orderNumber()
    payment.totalAmount = totalAmount
    payment.currencyCode = form.currency
    payment.description = form.description ?? ''
    payment.clientEmail = form.email ?? ''
    // Stores the payment and creates its capture token: both writes in one Redis round trip.
    let token
    try {
      token = await app.paywire.prepareCapture(form.gateway, payment, 'done')
    } catch (error) {
      if ((error as FastifyError).statusCode !== undefined && (error as FastifyError).statusCode as number < 500) throw error
      request.log.error({ err: error }, 'demo shop: checkout failed')
      return page(500, INTERNAL_MESSAGE)
    }
    return reply.redirect(token.targetUrl, 302)
  })

  return app
}

/**
 * PayPal's sandbox (or live) with credentials; without them the simulator, started with the shop.
 * Both PayPal gateways side by side: "paypal" (Payments v1) and "paypal-checkout" (Orders v2).
 */
async function addPaypal (app: FastifyInstance, paypal: 'simulator' | PaypalCredentials): Promise<void> {
  await app.register(paypalRestGateway)
  await app.register(paypalCheckoutGateway)
  if (paypal !== 'simulator') {
    const account = { client_id: paypal.clientId, client_secret: paypal.clientSecret, config: { mode: paypal.mode ?? 'sandbox' } }
    app.paywire.addGateway('paypal', { factory: 'paypal_rest', webhook_id: paypal.webhookId ?? '', ...account })
    // Its webhooks go to its own notify URL, which needs a webhook id of its own at PayPal.
    app.paywire.addGateway('paypal-checkout', { factory: 'paypal_checkout', webhook_id: paypal.checkoutWebhookId ?? '', ...account })
    return
  }
  const client = { clientId: 'demo-shop', clientSecret: randomUUID() }
  const simulator = buildPaypalSimulator({ clients: [client] })
  const endpoint = await simulator.listen({ port: 0, host: '127.0.0.1' })
  app.addHook('onClose', async function closePaypalSimulator () {
    await simulator.close()
  })
  app.decorate('paypalSimulator', simulator)
  const account = { client_id: client.clientId, client_secret: client.clientSecret, config: { 'service.EndPoint': endpoint } }
  const gateways = { paypal: 'paypal_rest', 'paypal-checkout': 'paypal_checkout' } as const
  for (const [name, factory] of Object.entries(gateways)) app.paywire.addGateway(name, { factory, ...account })
  // Webhooks need the shop's address: subscribe once it listens.
  app.addHook('onListen', function subscribePaypalWebhooks () {
    for (const [name, factory] of Object.entries(gateways)) {
      const subscription = simulator.simulator.webhooks.subscribe({ url: `${app.listeningOrigin}/payment/notify/unsafe/${name}`, clientId: client.clientId })
      app.paywire.addGateway(name, { factory, webhook_id: subscription.id })
    }
  })
}

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

/** What a person reads when the shop cannot start: the cause and what to change, never a stack trace. */
export function startupMessage (error: unknown, settings?: DemoEnvironment): string {
  const { code, message } = (error ?? {}) as { code?: string, message?: string }
  if (error instanceof DemoConfigError) return message as string
  if (code === 'EADDRINUSE') return `Port ${settings?.port ?? ''} on ${settings?.host ?? ''} is in use by another program: stop it, or set PORT to another port (PORT=0 picks a free one).`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `HOST=${settings?.host ?? ''} is not an address of this machine.`
  if (code === 'EACCES') return `Port ${settings?.port ?? ''} needs privileges: use a port above 1023.`
  if (code === 'PAYWIRE_ERR_REDIS_UNREACHABLE' || code === 'PAYWIRE_ERR_POSTGRES_UNREACHABLE' || code === 'PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED' ||
    code === 'PAYWIRE_ERR_INVALID_OPTION' || code === 'PAYWIRE_ERR_REQUIRED_OPTION') return message as string
  return `The demo shop could not start: ${redactRedisUrl(String(message ?? error))}`
}

async function start (): Promise<void> {
  let settings: DemoEnvironment | undefined
  let app: FastifyInstance | undefined
  try {
    settings = readEnvironment()
    app = await buildDemoShop({
      redisUrl: settings.redisUrl,
      databaseUrl: settings.databaseUrl,
      databaseSchema: settings.databaseSchema,
      baseUrl: settings.baseUrl,
      logger: { level: settings.logLevel },
      paypal: settings.paypal
    })
    const shop = app
    const shutdown = async (signal: string): Promise<void> => {
      shop.log.info(`${signal} received, closing`)
      await shop.close()
      process.exit(0)
    }
    process.once('SIGINT', shutdown)
    process.once('SIGTERM', shutdown)
    const address = await app.listen({ port: settings.port, host: settings.host })
    const storage = settings.databaseUrl !== undefined ? (settings.redisUrl !== undefined ? 'postgres, tokens in redis' : 'postgres') : settings.redisUrl !== undefined ? 'redis' : 'memory'
    app.log.info(`Demo shop: ${address}/ (storage: ${storage}, PayPal: ${settings.paypal === 'simulator' ? 'simulator' : 'PayPal'})`)
  } catch (error) {
    process.stderr.write(`${startupMessage(error, settings)}\n`)
    await app?.close().catch(() => {})
    process.exit(1)
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await start()
}
