import {
  Checkpoint, GatewayAwareAction, GetHttpRequest, HttpRedirect, errorCodes, type Authorize, type Capture
} from '../../../plugins/core/engine/index.ts'
import type { PaypalCallError } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { codedError, isFinalRefusal, isOutcomeUnknown, isPaypalCallError, issueOf, recordedError, redirectOf } from '../errors.ts'
import { awaitsBuyer, link, renewRequestId, requestIdFor, type CheckoutRecord } from '../record.ts'
import type { CheckoutSettings } from '../settings.ts'
import type { CheckoutViews } from '../views.ts'

/** Refusals the buyer can put right at PayPal: another instrument, a step to complete, an approval not given yet. */
const BUYER_CAN_ACT: ReadonlySet<string> = new Set(['INSTRUMENT_DECLINED', 'PAYER_ACTION_REQUIRED', 'ORDER_NOT_APPROVED'])
/** Answers that mean an earlier call with this order did the work: PayPal's order tells the outcome. */
const DONE_BEFORE: ReadonlySet<string> = new Set(['ORDER_ALREADY_CAPTURED', 'ORDER_ALREADY_AUTHORIZED', 'DUPLICATE_REQUEST_ID'])

type Completion = 'capture' | 'authorize'

/** Where a buyer approves an order: `payer-action` (created with `payment_source.paypal`), else `approve`. */
function approvalLink (record: CheckoutRecord): string | undefined {
  return link(record, 'payer-action') ?? link(record, 'approve')
}

/**
 * Where a buyer still owed a step at PayPal goes: the way back a refusal gave them, else, while the
 * order is not approved, its approval link. An approved order with no refusal pending needs no buyer.
 */
function buyerGoesTo (record: CheckoutRecord): string | undefined {
  if (!awaitsBuyer(record)) return undefined
  if (typeof record.paywire_payer_redirect === 'string') return record.paywire_payer_redirect
  return record.status === 'APPROVED' ? undefined : approvalLink(record)
}

/**
 * The buyer's journey through PayPal, for Capture and Authorize: create the order (its
 * PayPal-Request-Id stored first) and send the buyer to the `payer-action` link; when PayPal sends
 * them back with `token` = the order id (or the order reads APPROVED), capture or authorize it.
 * `?cancelled=1` cancels without calling PayPal. A refusal the buyer can put right sends them back
 * to PayPal, by the 422's `redirect` link (the order stays APPROVED there), and until they come back
 * with the token any visit goes there again, with no call to PayPal; another refusal ends the
 * payment; an unknown outcome is looked up before anything is sent again.
 */
export abstract class PayerFlowAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views', 'settings']
  readonly api: PaypalCheckoutApi
  readonly views: CheckoutViews
  readonly settings: CheckoutSettings

  constructor (api: PaypalCheckoutApi, views: CheckoutViews, settings: CheckoutSettings) {
    super()
    this.api = api
    this.views = views
    this.settings = settings
  }

  protected async journey (record: CheckoutRecord, request: Capture | Authorize): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    if (http.query.cancelled !== undefined) {
      record.paywire_state = 'cancelled'
      return
    }
    if (record.id === undefined) {
      await this.#create(record, request)
    } else if (http.query.token === record.id || (record.status === 'APPROVED' && record.paywire_payer_redirect === undefined)) {
      // Back from PayPal, where the buyer chose (again): the way back they were given is used up.
      delete record.paywire_payer_redirect
      await this.#complete(record)
    }
    // Just created, back without approval (a reload, a forged return), or sent back to choose again.
    const target = buyerGoesTo(record)
    if (target !== undefined) throw new HttpRedirect(target)
  }

  async #create (record: CheckoutRecord, request: Capture | Authorize): Promise<void> {
    if (request.token === null) throw new errorCodes.PAYWIRE_ERR_TOKEN_REQUIRED('PayPal checkout')
    const cancelUrl = new URL(request.token.targetUrl)
    cancelUrl.searchParams.set('cancelled', '1')
    const body = {
      intent: record.intent,
      purchase_units: record.purchase_units,
      payment_source: { paypal: { experience_context: this.settings.experienceContext(request.token.targetUrl, cancelUrl.href) } }
    }
    // Within PayPal's window (6 hours) a retry gets the same order back; after it, a new order:
    // the first was never shown to a buyer, so it can never be paid.
    const requestId = requestIdFor(record, 'create')
    await this.gateway.execute(new Checkpoint())
    try {
      this.#took(record, await this.api.createOrder(body, requestId), 'create')
    } catch (error) {
      this.#fail(record, error)
    }
  }

  async #complete (record: CheckoutRecord): Promise<void> {
    const action: Completion = record.intent === 'AUTHORIZE' ? 'authorize' : 'capture'
    const attempts = (record.paywire_attempts ??= {}) as Record<string, boolean>
    // An earlier call's outcome is unknown, and PayPal may have forgotten its request id by now:
    // PayPal's order says whether it did the work before anything is sent again.
    if (attempts[action] === true && !await this.#lookedUp(record, action)) return
    const requestId = requestIdFor(record, action)
    attempts[action] = true
    await this.gateway.execute(new Checkpoint())
    try {
      this.#took(record, await this.api.completeOrder(record.id, action, requestId), action)
    } catch (error) {
      await this.#refused(record, action, error)
    }
  }

  /** False when PayPal's order is done with (completed, or no longer approved): nothing to send. */
  async #lookedUp (record: CheckoutRecord, action: Completion): Promise<boolean> {
    const current = await this.api.getOrder(record.id)
    if (current.status !== 'COMPLETED') {
      this.views.take(record, current, 'sync')
      if (current.status === 'APPROVED') return true
      delete record.paywire_attempts[action]
      return false
    }
    this.#took(record, current, action)
    return false
  }

  async #refused (record: CheckoutRecord, action: Completion, error: unknown): Promise<void> {
    if (!isPaypalCallError(error)) throw error
    const issue = issueOf(error)
    if (DONE_BEFORE.has(issue)) {
      this.#took(record, await this.api.getOrder(record.id), action)
      return
    }
    if (BUYER_CAN_ACT.has(issue)) return await this.#backToPaypal(record, action, error)
    if (isOutcomeUnknown(error)) {
      const current = await this.api.getOrder(record.id).catch(() => undefined)
      if (current?.status === 'COMPLETED') {
        this.#took(record, current, action)
        return
      }
    }
    this.#fail(record, error)
    delete record.paywire_attempts[action]
  }

  /**
   * The buyer chooses again at PayPal: the refused id is never sent again. PayPal's 422 names the way
   * back (`redirect`: its checkout for the same order, which stays APPROVED); an order not approved
   * (ORDER_NOT_APPROVED) names it by its own `payer-action` or `approve` link. Without either, the
   * coded error is all there is to answer.
   */
  async #backToPaypal (record: CheckoutRecord, action: Completion, error: PaypalCallError): Promise<void> {
    delete record.paywire_attempts[action]
    renewRequestId(record, action)
    record.error = recordedError(error)
    const current = await this.api.getOrder(record.id).catch(() => undefined)
    if (current !== undefined) this.views.take(record, current, 'sync')
    const target = redirectOf(error) ?? approvalLink(record)
    if (target === undefined) throw codedError(error)
    record.paywire_payer_redirect = target
  }

  #took (record: CheckoutRecord, order: Record<string, any>, source: 'create' | Completion): void {
    if (this.views.take(record, order, source) !== 'keep') delete record.error
    if (source !== 'create') delete record.paywire_attempts?.[source]
  }

  /** A refusal for good ends the payment (failed, or expired); anything else may work later and is thrown. */
  #fail (record: CheckoutRecord, error: unknown): void {
    if (!isPaypalCallError(error)) throw error
    record.error = recordedError(error)
    if (!isFinalRefusal(error)) throw error
    record.paywire_state = issueOf(error) === 'ORDER_EXPIRED' ? 'expired' : 'failed'
  }
}
