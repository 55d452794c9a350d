import { PaypalRestClient, type PaypalResource } from '../paypal-shared/index.ts'

const REPRESENTATION = { prefer: 'return=representation' }

function at (path: string, id: string, action = ''): string {
  return `${path}/${encodeURIComponent(id)}${action}`
}

/**
 * Orders v2 and Payments v2, paypal_checkout's own API surface, on the shared PayPal REST client
 * (OAuth token cache, retries, request ids, error bodies). Every call that changes something
 * carries a PayPal-Request-Id and asks for the whole resource back (`Prefer: return=representation`).
 */
export class PaypalCheckoutApi extends PaypalRestClient {
  createOrder (body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.request('POST', '/v2/checkout/orders', { body, requestId, headers: REPRESENTATION })
  }

  getOrder (id: string): Promise<PaypalResource> {
    return this.request('GET', at('/v2/checkout/orders', id))
  }

  /** `capture` or `authorize` an approved order. */
  completeOrder (id: string, action: 'capture' | 'authorize', requestId: string): Promise<PaypalResource> {
    return this.request('POST', at('/v2/checkout/orders', id, `/${action}`), { body: {}, requestId, headers: REPRESENTATION })
  }

  captureAuthorization (id: string, body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.request('POST', at('/v2/payments/authorizations', id, '/capture'), { body, requestId, headers: REPRESENTATION })
  }

  voidAuthorization (id: string, requestId: string): Promise<PaypalResource> {
    return this.request('POST', at('/v2/payments/authorizations', id, '/void'), { body: {}, requestId, headers: REPRESENTATION })
  }

  getCapture (id: string): Promise<PaypalResource> {
    return this.request('GET', at('/v2/payments/captures', id))
  }

  refundCapture (id: string, body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.request('POST', at('/v2/payments/captures', id, '/refund'), { body, requestId, headers: REPRESENTATION })
  }
}
