/*
 * The demo's PayPal: both PayPal gateways side by side, "paypal" (paypal_rest, Payments v1) and
 * "paypal-checkout" (paypal_checkout, Orders v2). With credentials they use PayPal itself;
 * without, the project's PayPal simulator, started in this process, so the whole redirect
 * flow, webhooks included, works offline.
 */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { paypalCheckoutGateway } from 'paywire/gateways/paypal-checkout'
import { paypalRestGateway } from 'paywire/gateways/paypal-rest'
import { buildPaypalSimulator, type PaypalSimulator } from 'paywire/paypal-simulator'

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

/**
 * The webhook events each gateway's notify URL subscribes to: its own API's only, so neither
 * gateway is told about the other's money (which it would report as unmatched). From PayPal's
 * "Webhook event names" (https://developer.paypal.com/api/rest/webhooks/event-names/): Payments v1
 * and Sales for paypal_rest's sales; Orders, Checkout buyer approval and Payments v2 for
 * paypal_checkout. PAYMENT.AUTHORIZATION.* also names v1 authorizations: the demo's "paypal"
 * gateway sells (intent sale), so they go to "paypal-checkout".
 */
export const PAYPAL_WEBHOOK_EVENTS = {
  paypal_rest: ['PAYMENTS.PAYMENT.CREATED', 'PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.DENIED', 'PAYMENT.SALE.PENDING', 'PAYMENT.SALE.REFUNDED', 'PAYMENT.SALE.REVERSED'],
  paypal_checkout: [
    'CHECKOUT.ORDER.APPROVED', 'CHECKOUT.ORDER.COMPLETED', 'CHECKOUT.PAYMENT-APPROVAL.REVERSED', 'PAYMENT.AUTHORIZATION.CREATED', 'PAYMENT.AUTHORIZATION.VOIDED',
    'PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.DECLINED', 'PAYMENT.CAPTURE.DENIED', 'PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED'
  ]
} as const

const GATEWAYS = { paypal: 'paypal_rest', 'paypal-checkout': 'paypal_checkout' } as const

/** Registers the PayPal gateway factories and the shop's two PayPal gateways. */
export async function addPaypal (app: FastifyInstance, paypal: 'simulator' | PaypalCredentials): Promise<void> {
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
  // PayPal resends a notification the shop did not accept 25 times over three days: the demo's
  // simulator keeps some of that persistence (the defaults, 3 attempts 100 ms apart, suit tests
  // that provoke failures), so a webhook that meets the buyer's capture holding the payment on a
  // busy machine is accepted on a later attempt, as at PayPal, rather than dropped.
  const simulator = buildPaypalSimulator({ clients: [client], webhookDelivery: { maxAttempts: 8, retryDelayMs: 250 } })
  const endpoint = await simulator.listen({ port: 0, host: '127.0.0.1' })
  app.addHook('onClose', async function closePaypalSimulator () {
    await simulator.close()
  })
  app.decorate('paypalSimulator', simulator)
  const account = { client_id: client.clientId, client_secret: client.clientSecret, config: { 'service.EndPoint': endpoint } }
  for (const [name, factory] of Object.entries(GATEWAYS)) app.paywire.addGateway(name, { factory, ...account })
  // Webhooks need the shop's address: subscribe once it listens, as one does in PayPal's dashboard.
  app.addHook('onListen', function subscribePaypalWebhooks () {
    for (const [name, factory] of Object.entries(GATEWAYS)) {
      const url = `${app.listeningOrigin}/payment/notify/unsafe/${name}`
      const subscription = simulator.simulator.webhooks.subscribe({ url, eventTypes: [...PAYPAL_WEBHOOK_EVENTS[factory]], clientId: client.clientId })
      app.paywire.addGateway(name, { factory, webhook_id: subscription.id })
    }
  })
}
