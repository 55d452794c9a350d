import {
  Capture, GatewayAwareAction, GetHttpRequest, HttpRedirect, errorCodes
} from '../../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalResource, type PaypalRestApi } from '../api.ts'
import { awaitsBuyer, createBody, link, recordOf, requestIdFor, type PaypalRecord } from '../details.ts'
import { isOutcomeUnknown, recordFailure } from './failures.ts'

/**
 * The PayPal wallet flow: create the payment and send the buyer to PayPal; when PayPal
 * sends them back with a PayerID, execute it. `?cancelled=1` (the cancel URL) cancels
 * without calling PayPal. Once executed (or failed, canceled, expired), capturing again
 * does nothing: a buyer reloading the return URL never pays twice.
 */
export class CaptureAction extends GatewayAwareAction {
  readonly api: PaypalRestApi

  constructor (api: PaypalRestApi) {
    super()
    this.api = api
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
    const redirect = record.redirect_urls as { return_url?: string } | undefined
    if (redirect?.return_url === undefined || redirect.return_url === '') {
      if (request.token === null) throw new errorCodes.PAYWIRE_ERR_TOKEN_REQUIRED('PayPal capture')
      const cancelUrl = new URL(request.token.targetUrl)
      cancelUrl.searchParams.set('cancelled', '1')
      record.redirect_urls = { return_url: request.token.targetUrl, cancel_url: cancelUrl.href }
    }
    try {
      this.#take(record, await this.api.createPayment(createBody(record), requestIdFor(record, 'create')))
    } catch (error) {
      recordFailure(record, error)
    }
  }

  async #execute (record: PaypalRecord, payerId: string): Promise<void> {
    try {
      this.#take(record, await this.api.executePayment(record.id, payerId, requestIdFor(record, 'execute')))
    } catch (error) {
      if (isPaypalCallError(error) && error.paypal.name === 'PAYMENT_ALREADY_DONE') {
        // Executed before (an answer lost on the way back): take PayPal's word for the outcome.
        this.#take(record, await this.api.getPayment(record.id))
        return
      }
      if (isPaypalCallError(error) && isOutcomeUnknown(error) && await this.#executedAtPaypal(record)) return
      recordFailure(record, error)
    }
  }

  /** After an execute without an answer: did PayPal execute it anyway? A failed look-up leaves the first error standing. */
  async #executedAtPaypal (record: PaypalRecord): Promise<boolean> {
    const current = await this.api.getPayment(record.id).catch(() => undefined)
    if (current === undefined || current.state === 'created') return false
    this.#take(record, current)
    return true
  }

  #take (record: PaypalRecord, payment: PaypalResource): void {
    Object.assign(record, payment)
    delete record.error
  }
}
