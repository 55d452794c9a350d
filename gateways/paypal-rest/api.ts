import { PaypalRestClient, type PaypalResource } from '../paypal-shared/index.ts'

export { isPaypalCallError, type CallOptions, type PaypalCallError, type PaypalError, type PaypalResource } from '../paypal-shared/index.ts'

/**
 * Payments v1, paypal_rest's own API surface, on the shared PayPal REST client (OAuth token
 * cache and refresh, retries, PayPal-Request-Id, error bodies, webhook signature verification).
 */
export class PaypalRestApi extends PaypalRestClient {
  createPayment (body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.request('POST', '/v1/payments/payment', { body, requestId })
  }

  getPayment (id: string): Promise<PaypalResource> {
    return this.request('GET', `/v1/payments/payment/${encodeURIComponent(id)}`)
  }

  executePayment (id: string, payerId: string, requestId: string): Promise<PaypalResource> {
    return this.request('POST', `/v1/payments/payment/${encodeURIComponent(id)}/execute`, { body: { payer_id: payerId }, requestId })
  }

  getSale (id: string): Promise<PaypalResource> {
    return this.request('GET', `/v1/payments/sale/${encodeURIComponent(id)}`)
  }

  /** A refund, or a reversal: PAYMENT.SALE.REVERSED's resource links to itself here, and this answer names its sale and payment. */
  getRefund (id: string): Promise<PaypalResource> {
    return this.request('GET', `/v1/payments/refund/${encodeURIComponent(id)}`)
  }

  refundSale (saleId: string, body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.request('POST', `/v1/payments/sale/${encodeURIComponent(saleId)}/refund`, { body, requestId })
  }
}
