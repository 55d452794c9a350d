import {
  Capture, Checkpoint, GatewayAwareAction, GetHttpRequest, HttpRedirect, errorCodes
} from '../../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalRestApi } from '../api.ts'
import { awaitsBuyer, createBody, link, recordOf, renewRequestId, requestIdFor, type PaypalRecord } from '../details.ts'
import { assertSendable } from '../preflight.ts'
import type { PaypalViews } from '../views.ts'
import { buyerCanStillApprove, isOutcomeUnknown, recordFailure } from './failures.ts'

/**
 * Answers to execute that mean an earlier execute may have worked: PAYMENT_ALREADY_DONE, and
 * DUPLICATE_REQUEST_ID (the stored id was used with another payer id, so PayPal knows a call).
 */
const LOOK_UP_AFTER: ReadonlySet<string> = new Set(['PAYMENT_ALREADY_DONE', 'DUPLICATE_REQUEST_ID'])

/**
 * The PayPal wallet flow: create the payment and send the buyer to PayPal; when PayPal
 * sends them back with a PayerID, execute it. `?cancelled=1` (the cancel URL) cancels
 * without calling PayPal. Once executed (or failed, canceled, expired), capturing again
 * does nothing: a buyer reloading the return URL never pays twice.
 *
 * Each call's PayPal-Request-Id is stored (a Checkpoint) before PayPal hears of it, so a
 * crash or a lost answer can only ever repeat the call with the same id.
 */
export class CaptureAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter('api', ...) (see autowire()). */
  static readonly inject = ['api', 'views']
  readonly api: PaypalRestApi
  readonly views: PaypalViews

  constructor (api: PaypalRestApi, views: PaypalViews) {
    super()
    this.api = api
    this.views = views
  }

  supports (request: unknown): boolean {
    if (!(request instanceof Capture)) return false
    const record = recordOf(request.model)
    return record !== undefined && (record.payer?.payment_method ?? 'paypal') === 'paypal'
  }

  async execute (request: Capture): Promise<void> {
    const record = recordOf(request.model) as PaypalRecord
    if (!awaitsBuyer(record)) return
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    if (http.query.cancelled !== undefined) {
      record.state = 'cancelled'
      return
    }
    if (record.id === undefined) {
      await this.#create(record, request)
    } else {
      const { PayerID: payerId, paymentId } = http.query
      // PayPal sends the buyer back with the payment's id and the payer's; anything else is not a return from approval.
      if (typeof payerId === 'string' && payerId !== '' && (paymentId === undefined || paymentId === record.id)) {
        await this.#execute(record, payerId)
        return
      }
    }
    // Just created, or back without approval (a reload, a bookmark): PayPal's page.
    const approval = link(record, 'approval_url')
    if (approval !== undefined && record.state === 'created') throw new HttpRedirect(approval)
  }

  async #create (record: PaypalRecord, request: Capture): Promise<void> {
    assertSendable(record)
    const redirect = record.redirect_urls as { return_url?: string } | undefined
    if (redirect?.return_url === undefined || redirect.return_url === '') {
      if (request.token === null) throw new errorCodes.PAYWIRE_ERR_TOKEN_REQUIRED('PayPal capture')
      const cancelUrl = new URL(request.token.targetUrl)
      cancelUrl.searchParams.set('cancelled', '1')
      record.redirect_urls = { return_url: request.token.targetUrl, cancel_url: cancelUrl.href }
    }
    const requestId = requestIdFor(record, 'create')
    await this.gateway.execute(new Checkpoint())
    try {
      this.#take(record, await this.api.createPayment(createBody(record), requestId), 'create')
    } catch (error) {
      recordFailure(record, error)
    }
  }

  async #execute (record: PaypalRecord, payerId: string): Promise<void> {
    const requestId = requestIdFor(record, 'execute')
    await this.gateway.execute(new Checkpoint())
    try {
      this.#take(record, await this.api.executePayment(record.id, payerId, requestId), 'execute')
    } catch (error) {
      if (isPaypalCallError(error) && LOOK_UP_AFTER.has(error.paypal.name)) {
        // Executed before (an answer lost on the way back): take PayPal's word for the outcome.
        this.#take(record, await this.api.getPayment(record.id), 'execute')
        return
      }
      if (isPaypalCallError(error) && buyerCanStillApprove(error)) {
        // A wrong or early PayerID (a forged or premature return): the buyer may still approve
        // at PayPal. The payment stays pending, the refused id is never sent again, and the
        // buyer goes back to PayPal's page; the capture link stays usable.
        record.error = error.paypal
        renewRequestId(record, 'execute')
        const approval = link(record, 'approval_url')
        if (approval !== undefined) throw new HttpRedirect(approval)
        throw error
      }
      if (isPaypalCallError(error) && isOutcomeUnknown(error) && await this.#executedAtPaypal(record)) return
      recordFailure(record, error)
    }
  }

  /** After an execute without an answer: did PayPal execute it anyway? A failed look-up leaves the first error standing. */
  async #executedAtPaypal (record: PaypalRecord): Promise<boolean> {
    const current = await this.api.getPayment(record.id).catch(() => undefined)
    if (current === undefined || current.state === 'created') return false
    this.#take(record, current, 'execute')
    return true
  }

  #take (record: PaypalRecord, payment: Record<string, any>, source: 'create' | 'execute'): void {
    if (this.views.take(record, payment, source) !== 'keep') delete record.error
  }
}
