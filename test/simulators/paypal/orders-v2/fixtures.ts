import type { LightMyRequestResponse } from 'fastify'
import type { PaypalSimulator } from '../../../../simulators/paypal/index.ts'
import { bearer, simulator } from '../fixtures/helpers.ts'

export const RETURN_URL = 'https://shop.test/return?order=42'
export const CANCEL_URL = 'https://shop.test/cancel'

/** What paypal_checkout sends: one purchase unit, a breakdown, the experience context. */
export function orderRequest (overrides: Record<string, unknown> = {}, unit: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    intent: 'CAPTURE',
    purchase_units: [{
      amount: { currency_code: 'USD', value: '7', breakdown: { item_total: { currency_code: 'USD', value: '7.00' } } },
      items: [{ name: 'Mug', quantity: '2', unit_amount: { currency_code: 'USD', value: '3.50' } }],
      invoice_id: 'INV-1',
      custom_id: 'payment-1',
      ...unit
    }],
    payment_source: { paypal: { experience_context: { return_url: RETURN_URL, cancel_url: CANCEL_URL, brand_name: 'Shop', user_action: 'PAY_NOW' } } },
    ...overrides
  }
}

export interface Api {
  app: PaypalSimulator
  auth: Record<string, string>
  call: (method: 'GET' | 'POST', url: string, payload?: unknown, headers?: Record<string, string>) => Promise<LightMyRequestResponse>
}

export async function ordersApi (t: { teardown: (fn: () => unknown) => void }, options: Parameters<typeof simulator>[1] = {}): Promise<Api> {
  const app = simulator(t, options)
  const auth = await bearer(app)
  return {
    app,
    auth,
    call: async (method, url, payload, headers = {}) => await app.inject({
      method, url, headers: { ...auth, prefer: 'return=representation', ...headers }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> })
    })
  }
}

export async function createOrder (api: Api, body: Record<string, unknown> = orderRequest()): Promise<Record<string, any>> {
  const created = await api.call('POST', '/v2/checkout/orders', body)
  if (created.statusCode !== 201) throw new Error(`create failed: ${created.statusCode} ${created.body}`)
  return created.json()
}

/** Created, approved and captured (or authorized): the order as answered. */
export async function paidOrder (api: Api, body: Record<string, unknown> = orderRequest(), outcome: 'completed' | 'pending' = 'completed'): Promise<Record<string, any>> {
  const order = await createOrder(api, body)
  api.app.simulator.orders.approve(order.id, { outcome })
  const action = body.intent === 'AUTHORIZE' ? 'authorize' : 'capture'
  const done = await api.call('POST', `/v2/checkout/orders/${order.id}/${action}`, {})
  if (done.statusCode !== 201) throw new Error(`${action} failed: ${done.statusCode} ${done.body}`)
  return done.json()
}
