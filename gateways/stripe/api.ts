import Stripe from 'stripe'
import type { HttpClient, Logger } from '../../plugins/core/engine/index.ts'
import type { StripeConfig } from './config.ts'
import { StripeHttpAdapter } from './http.ts'

/** Most refunds or disputes one payment can have that Sync reads (far beyond any real payment's). */
const LIST_LIMIT = 1000

/**
 * The calls the stripe gateway makes, on the official SDK (one client per gateway, its HTTP
 * through Paywire's HttpClient). Every POST carries the idempotency key Paywire stored before
 * the call (`<payment>:<operation>:<sequence>`), so the SDK's retries and Paywire's own, even
 * after a crash, send the same key and Stripe does the work once.
 */
export class StripeApi {
  readonly config: StripeConfig
  readonly #stripe: Stripe

  constructor (config: StripeConfig, http: HttpClient, logger: Logger) {
    this.config = config
    this.#stripe = new Stripe(config.secretKey(), {
      apiVersion: config.apiVersion as Stripe.LatestApiVersion,
      httpClient: new StripeHttpAdapter(http, logger),
      maxNetworkRetries: config.maxNetworkRetries,
      timeout: config.timeoutMs,
      appInfo: { name: 'paywire' },
      ...(config.host === undefined ? {} : { host: config.host }),
      ...(config.port === undefined ? {} : { port: config.port }),
      ...(config.protocol === undefined ? {} : { protocol: config.protocol })
    })
  }

  /** https://docs.stripe.com/api/checkout/sessions/create */
  async createCheckoutSession (params: Stripe.Checkout.SessionCreateParams, idempotencyKey: string): Promise<Stripe.Checkout.Session> {
    return await this.#stripe.checkout.sessions.create(params, { idempotencyKey })
  }

  /** https://docs.stripe.com/api/checkout/sessions/retrieve, with its PaymentIntent and that one's latest charge. */
  async retrieveCheckoutSession (id: string): Promise<Stripe.Checkout.Session> {
    return await this.#stripe.checkout.sessions.retrieve(id, { expand: ['payment_intent.latest_charge'] })
  }

  /** https://docs.stripe.com/api/checkout/sessions/expire */
  async expireCheckoutSession (id: string, idempotencyKey: string): Promise<Stripe.Checkout.Session> {
    return await this.#stripe.checkout.sessions.expire(id, { expand: ['payment_intent.latest_charge'] }, { idempotencyKey })
  }

  /** https://docs.stripe.com/api/payment_intents/retrieve, with its latest charge. */
  async retrievePaymentIntent (id: string): Promise<Stripe.PaymentIntent> {
    return await this.#stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] })
  }

  /** https://docs.stripe.com/api/payment_intents/capture: all that is capturable, or `amount` (Stripe's units). */
  async capturePaymentIntent (id: string, amount: number | undefined, idempotencyKey: string): Promise<Stripe.PaymentIntent> {
    const params: Stripe.PaymentIntentCaptureParams = { expand: ['latest_charge'] }
    if (amount !== undefined) params.amount_to_capture = amount
    return await this.#stripe.paymentIntents.capture(id, params, { idempotencyKey })
  }

  /** https://docs.stripe.com/api/payment_intents/cancel */
  async cancelPaymentIntent (id: string, idempotencyKey: string): Promise<Stripe.PaymentIntent> {
    return await this.#stripe.paymentIntents.cancel(id, { cancellation_reason: 'requested_by_customer', expand: ['latest_charge'] }, { idempotencyKey })
  }

  /** https://docs.stripe.com/api/refunds/create */
  async createRefund (params: Stripe.RefundCreateParams, idempotencyKey: string): Promise<Stripe.Refund> {
    return await this.#stripe.refunds.create(params, { idempotencyKey })
  }

  /** https://docs.stripe.com/api/refunds/list, every page. */
  async listRefunds (paymentIntent: string): Promise<Stripe.Refund[]> {
    return await this.#stripe.refunds.list({ payment_intent: paymentIntent, limit: 100 }).autoPagingToArray({ limit: LIST_LIMIT })
  }

  /** https://docs.stripe.com/api/disputes/list, every page. */
  async listDisputes (paymentIntent: string): Promise<Stripe.Dispute[]> {
    return await this.#stripe.disputes.list({ payment_intent: paymentIntent, limit: 100 }).autoPagingToArray({ limit: LIST_LIMIT })
  }

  /**
   * The event a delivery carries, if its Stripe-Signature verifies with one of the gateway's
   * secrets within the tolerance (https://docs.stripe.com/webhooks#verify-official-libraries);
   * undefined otherwise.
   */
  verifyWebhook (payload: string, signature: string): Stripe.Event | undefined {
    for (const secret of this.config.webhookSecrets()) {
      try {
        return this.#stripe.webhooks.constructEvent(payload, signature, secret, this.config.webhookToleranceSeconds)
      } catch (error) {
        if (!(error instanceof Stripe.errors.StripeSignatureVerificationError)) throw error
      }
    }
    return undefined
  }
}
