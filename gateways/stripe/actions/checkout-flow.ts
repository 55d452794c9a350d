import type Stripe from 'stripe'
import {
  GetHttpRequest, HttpRedirect, HumanStatus, errorCodes, type Authorize, type Capture
} from '../../../plugins/core/engine/index.ts'
import { isRefusal, paywireError } from '../errors.ts'
import { intentView, sessionView, type StripeRecord } from '../record.ts'
import { stripeStatus } from '../status.ts'
import { StripeAction } from './stripe-action.ts'

/** Where the PaymentIntent stands once the buyer is gone for good: nothing was taken, nothing can be. */
const NOTHING_TAKEN: ReadonlySet<string> = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action', 'canceled'])

/** Stripe's limit for a metadata value (https://docs.stripe.com/api/metadata). */
const METADATA_VALUE_LIMIT = 500

/** The metadata every object Paywire makes carries: webhooks name their payment by it. */
export function paywireMetadata (record: StripeRecord): Record<string, string> {
  const metadata: Record<string, string> = {}
  if (typeof record.paywire_payment === 'string') metadata.paywire_payment = record.paywire_payment
  if (typeof record.paywire_number === 'string' && record.paywire_number !== '') metadata.paywire_number = [...record.paywire_number].slice(0, METADATA_VALUE_LIMIT).join('')
  return metadata
}

/**
 * The buyer's journey through Stripe Checkout, for Capture and Authorize: a Checkout Session
 * (its idempotency key stored first) whose success and cancel URLs are the capture token's
 * URL, the buyer sent to its `url`; back at the token's URL, the session and its PaymentIntent
 * are read from Stripe (the query string is never trusted); `?cancelled=1` (the cancel URL:
 * the buyer went back) expires the session. A session Stripe refuses for good ends the payment
 * `failed`; an unknown outcome is thrown (502) and the retry sends the same key.
 */
export abstract class CheckoutFlowAction extends StripeAction {
  protected async journey (record: StripeRecord, request: Capture | Authorize): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    if (http.query.cancelled !== undefined) return await this.#wentBack(record)
    if (record.checkout_session === undefined) await this.#create(record, request)
    else await this.reads.sync(record, 'return')
    const session = record.checkout_session as StripeRecord | undefined
    // Just created, or back without paying (a reload, a forged return): to Stripe's page while it is open.
    if (session?.status === 'open' && stripeStatus(record) === HumanStatus.PENDING) throw new HttpRedirect(session.url as string)
  }

  async #create (record: StripeRecord, request: Capture | Authorize): Promise<void> {
    if (request.token === null) throw new errorCodes.PAYWIRE_ERR_TOKEN_REQUIRED('Stripe Checkout')
    const cancelUrl = new URL(request.token.targetUrl)
    cancelUrl.searchParams.set('cancelled', '1')
    const metadata = paywireMetadata(record)
    const intentData: Stripe.Checkout.SessionCreateParams.PaymentIntentData = { metadata }
    if (record.capture_method === 'manual') intentData.capture_method = 'manual'
    if (typeof record.description === 'string' && record.description !== '') intentData.description = record.description
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: 'payment',
      line_items: [{ quantity: 1, price_data: { currency: record.currency, unit_amount: record.amount, product_data: { name: record.line_item_name ?? 'Order' } } }],
      success_url: request.token.targetUrl,
      cancel_url: cancelUrl.href,
      metadata,
      payment_intent_data: intentData
    }
    if (typeof record.paywire_payment === 'string') params.client_reference_id = record.paywire_payment
    if (typeof record.customer_email === 'string') params.customer_email = record.customer_email
    try {
      const session = await this.call(record, 'checkout_session', async (key) => await this.api.createCheckoutSession(params, key))
      this.views.take(record, { checkout_session: sessionView(session) }, 'create')
    } catch (error) {
      if (!isRefusal(error)) throw paywireError(error)
      // Stripe will never make this session (a currency it does not take, an amount under its minimum…).
      record.paywire_state = 'failed'
    }
  }

  /** Back from Stripe's page without paying: the session is expired so the buyer cannot pay it later; paid meanwhile, it stays paid. */
  async #wentBack (record: StripeRecord): Promise<void> {
    const status = stripeStatus(record)
    if (status !== HumanStatus.NEW && status !== HumanStatus.PENDING) return
    const session = record.checkout_session as StripeRecord | undefined
    if (session?.status === 'open') await this.expireSession(record, session.id)
    // Expired (or never made): nobody can pay it any more, unless a payment is already under way.
    if (typeof record.id !== 'string' || NOTHING_TAKEN.has(record.status)) record.paywire_state = 'canceled'
  }

  /** Expires an open session; one Stripe no longer holds open (paid, expired) is read instead. */
  protected async expireSession (record: StripeRecord, id: string): Promise<void> {
    try {
      const session = await this.call(record, 'expire_session', async (key) => await this.api.expireCheckoutSession(id, key))
      const view: StripeRecord = { checkout_session: sessionView(session) }
      if (session.payment_intent !== null && typeof session.payment_intent === 'object') Object.assign(view, intentView(session.payment_intent))
      this.views.take(record, view, 'expire')
    } catch (error) {
      if (!isRefusal(error)) throw paywireError(error)
      await this.reads.sync(record, 'expire')
    }
  }
}
