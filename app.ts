/*
 * The demo shop: `npm start`. A checkout page that runs Paywire's preparation procedure
 * (store a Payment, create a capture token, redirect the buyer) and the plugin's payment
 * routes. Embedded defaults: memory storage and the offline gateway; REDIS_URL switches
 * tokens and payments to Redis.
 */
import { randomUUID } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import formbody from '@fastify/formbody'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { offlineGateway } from './gateways/offline/index.ts'
import { paypalRestGateway } from './gateways/paypal-rest/index.ts'
import { buildPaypalSimulator, type PaypalSimulator } from './gateways/paypal-rest/simulator/index.ts'
import { Payment, escapeHtml, paywire, parseToMinorUnits, type PaywirePluginOptions } from './plugins/core/index.ts'
import { paywireRedis } from './plugins/redis/index.ts'
import { paywireGraphql } from './plugins/graphql/index.ts'

export interface DemoShopOptions {
  /** Use Redis for tokens and payments. */
  redisUrl?: string
  /** Key prefix in Redis (tests use one per file). */
  redisKeyPrefix?: string
  baseUrl?: string
  logger?: FastifyServerOptions['logger']
  /**
   * The "paypal" gateway: 'simulator' (default) runs the project's PayPal simulator in
   * process, so the whole redirect flow works offline; credentials use PayPal itself.
   */
  paypal?: false | 'simulator' | PaypalCredentials
  /** Serve GraphiQL on /graphiql (npm start: outside production). */
  graphiql?: boolean
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

function checkoutPage (gateways: string[], error = ''): string {
  const options = (values: string[]) => values.map((value) => `<option>${escapeHtml(value)}</option>`).join('')
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
<label for="amount">Amount</label><input id="amount" name="amount" inputmode="decimal" value="19.99" required>
<label for="currency">Currency</label><select id="currency" name="currency">${options(CURRENCIES)}</select>
<label for="gateway">Pay with</label><select id="gateway" name="gateway">${options(gateways)}</select>
<label for="description">Description</label><input id="description" name="description" value="Demo order">
<p><button type="submit">Pay</button></p>
</form>
</main></body></html>`
}

export async function buildDemoShop (options: DemoShopOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false }).withTypeProvider<TypeBoxTypeProvider>()
  await app.register(formbody)
  const paywireOptions: PaywirePluginOptions = {
    baseUrl: options.baseUrl,
    gateways: { offline: { factory: 'offline' } }
  }
  if (options.redisUrl !== undefined) {
    await app.register(paywireRedis, { url: options.redisUrl, keyPrefix: options.redisKeyPrefix })
    paywireOptions.backend = app.paywireRedis
  }
  await app.register(paywire, paywireOptions)
  await app.register(offlineGateway)
  // POST /graphql: createPayment for frontends; back-office operations stay denied (no authorize option).
  await app.register(paywireGraphql, { mercurius: { graphiql: options.graphiql ?? false } })
  if (options.paypal !== false) await addPaypal(app, options.paypal ?? 'simulator')

  app.get('/', async function checkoutPageRoute (_request, reply) {
    return reply.type('text/html; charset=utf-8').send(checkoutPage(app.paywire.getGatewayNames()))
  })

  app.post('/checkout', {
    schema: { body: CheckoutForm },
    attachValidation: true
  }, async function checkoutRoute (request, reply) {
    const page = (status: number, message: string) =>
      reply.code(status).type('text/html; charset=utf-8').send(checkoutPage(app.paywire.getGatewayNames(), message))
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
    payment.number = `DEMO-${Date.now().toString(36).toUpperCase()}`
    payment.totalAmount = totalAmount
    payment.currencyCode = form.currency
    payment.description = form.description ?? ''
    payment.clientEmail = form.email ?? ''
    // Stores the payment and creates its capture token: both writes in one Redis round trip.
    const token = await app.paywire.prepareCapture(form.gateway, payment, 'done')
    return reply.redirect(token.targetUrl, 302)
  })

  return app
}

/** PayPal's sandbox (or live) with credentials; without them the simulator, started with the shop. */
async function addPaypal (app: FastifyInstance, paypal: 'simulator' | PaypalCredentials): Promise<void> {
  await app.register(paypalRestGateway)
  if (paypal !== 'simulator') {
    app.paywire.addGateway('paypal', {
      factory: 'paypal_rest',
      client_id: paypal.clientId,
      client_secret: paypal.clientSecret,
      webhook_id: paypal.webhookId ?? '',
      config: { mode: paypal.mode ?? 'sandbox' }
    })
    return
  }
  const client = { clientId: 'demo-shop', clientSecret: randomUUID() }
  const simulator = buildPaypalSimulator({ clients: [client] })
  const endpoint = await simulator.listen({ port: 0, host: '127.0.0.1' })
  app.addHook('onClose', async function closePaypalSimulator () {
    await simulator.close()
  })
  app.decorate('paypalSimulator', simulator)
  app.paywire.addGateway('paypal', {
    factory: 'paypal_rest',
    client_id: client.clientId,
    client_secret: client.clientSecret,
    config: { 'service.EndPoint': endpoint }
  })
  // Webhooks need the shop's address: subscribe once it listens.
  app.addHook('onListen', function subscribePaypalWebhooks () {
    const subscription = simulator.simulator.webhooks.subscribe({ url: `${app.listeningOrigin}/payment/notify/unsafe/paypal`, clientId: client.clientId })
    app.paywire.addGateway('paypal', { factory: 'paypal_rest', webhook_id: subscription.id })
  })
}

/** An environment variable, with an empty value read as unset (`REDIS_URL= npm start` means no Redis). */
function env (name: string): string | undefined {
  const value = process.env[name]
  return value === '' ? undefined : value
}

async function start (): Promise<void> {
  const clientId = env('PAYPAL_CLIENT_ID')
  const clientSecret = env('PAYPAL_CLIENT_SECRET')
  const usePaypal = clientId !== undefined && clientSecret !== undefined
  const redisUrl = env('REDIS_URL')
  const app = await buildDemoShop({
    redisUrl,
    baseUrl: env('BASE_URL'),
    logger: { level: env('LOG_LEVEL') ?? 'info' },
    graphiql: process.env.NODE_ENV !== 'production',
    paypal: usePaypal
      ? { clientId, clientSecret, mode: env('PAYPAL_MODE') === 'live' ? 'live' : 'sandbox', webhookId: env('PAYPAL_WEBHOOK_ID') }
      : 'simulator'
  })
  const shutdown = async (signal: string): Promise<void> => {
    app.log.info(`${signal} received, closing`)
    await app.close()
    process.exit(0)
  }
  process.once('SIGINT', shutdown)
  process.once('SIGTERM', shutdown)
  const address = await app.listen({ port: Number(env('PORT') ?? 3000), host: env('HOST') ?? '127.0.0.1' })
  app.log.info(`Demo shop: ${address}/ (storage: ${redisUrl === undefined ? 'memory' : 'redis'}, PayPal: ${usePaypal ? 'PayPal' : 'simulator'})`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await start()
}
