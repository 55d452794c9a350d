import type { PaypalResource, PaypalRestApi } from '../paypal-rest/index.ts'

const REPRESENTATION = { prefer: 'return=representation' }

function at (path: string, id: string, action = ''): string {
  return `${path}/${encodeURIComponent(id)}${action}`
}

/**
 * Orders v2 and Payments v2 on PayPal's REST client (its OAuth token cache, retries, request ids
 * and error bodies). Every call that changes something carries a PayPal-Request-Id and asks for the
 * whole resource back (`Prefer: return=representation`).
 */
export class PaypalCheckoutApi {
  readonly client: PaypalRestApi

  constructor (client: PaypalRestApi) {
    this.client = client
  }

  createOrder (body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.client.request('POST', '/v2/checkout/orders', { body, requestId, headers: REPRESENTATION })
  }

  getOrder (id: string): Promise<PaypalResource> {
    return this.client.request('GET', at('/v2/checkout/orders', id))
  }

  /** `capture` or `authorize` an approved order. */
  completeOrder (id: string, action: 'capture' | 'authorize', requestId: string): Promise<PaypalResource> {
    return this.client.request('POST', at('/v2/checkout/orders', id, `/${action}`), { body: {}, requestId, headers: REPRESENTATION })
  }

  captureAuthorization (id: string, body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.client.request('POST', at('/v2/payments/authorizations', id, '/capture'), { body, requestId, headers: REPRESENTATION })
  }

  voidAuthorization (id: string, requestId: string): Promise<PaypalResource> {
    return this.client.request('POST', at('/v2/payments/authorizations', id, '/void'), { body: {}, requestId, headers: REPRESENTATION })
  }

  getCapture (id: string): Promise<PaypalResource> {
    return this.client.request('GET', at('/v2/payments/captures', id))
  }

  refundCapture (id: string, body: PaypalResource, requestId: string): Promise<PaypalResource> {
    return this.client.request('POST', at('/v2/payments/captures', id, '/refund'), { body, requestId, headers: REPRESENTATION })
  }

  toJSON (): Record<string, unknown> {
    return this.client.toJSON()
  }
}
