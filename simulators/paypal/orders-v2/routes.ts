import type { FastifyInstance, FastifyRequest } from 'fastify'
import { newTransactionId } from '../runtime/ids.ts'
import { notFound } from './errors.ts'
import { authorizeOrder, captureOrder, type Orders } from './operations.ts'
import { patchOrder } from './patch.ts'
import type { StoredOrder } from './store.ts'
import { parseCreateOrder } from './validation.ts'
import { orderView, type V2Resource } from './views.ts'

export interface IdParams { id: string }

// Every Orders v2 call that changes something honours PayPal-Request-Id, for 6 hours.
const IDEMPOTENT = { config: { paypalIdempotent: true, paypalRequestIdWindow: 'orders-v2' } } as const

/** `Prefer: return=representation` gets the whole resource; the default (minimal) its id, status and links. */
export function shaped (request: FastifyRequest, resource: V2Resource): V2Resource {
  if (wantsRepresentation(request)) return resource
  return { id: resource.id, status: resource.status, links: resource.links }
}

export function wantsRepresentation (request: FastifyRequest): boolean {
  return /return=representation/i.test(String(request.headers.prefer ?? ''))
}

/** The caller's own resource, or 404 as PayPal answers for another merchant's id. */
export function owned<T extends { order?: StoredOrder, clientId?: string }> (orders: Orders, map: Map<string, T>, request: FastifyRequest<{ Params: IdParams }>): T {
  const found = map.get(request.params.id)
  const owner = found?.clientId ?? found?.order?.clientId
  if (found === undefined || owner !== orders.runtime.context(request).clientId) throw notFound()
  return found
}

/** Orders v2: create, show, update, and the order's capture or authorize. */
export function registerOrderRoutes (app: FastifyInstance, orders: Orders): void {
  const { runtime, store } = orders
  const base = (request: FastifyRequest): string => runtime.baseUrl(request)

  app.post('/v2/checkout/orders', IDEMPOTENT, async function createOrder (request, reply) {
    const input = parseCreateOrder(request.body)
    store.counters.ordersCreated++
    const now = runtime.store.now()
    const order: StoredOrder = {
      id: newTransactionId(),
      clientId: runtime.context(request).clientId,
      intent: input.intent,
      // With a PayPal payment source PayPal answers PAYER_ACTION_REQUIRED and a payer-action link.
      status: input.withPaymentSource ? 'PAYER_ACTION_REQUIRED' : 'CREATED',
      purchaseUnit: input.purchaseUnit,
      currency: input.currency,
      totalMinor: input.totalMinor,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      withPaymentSource: input.withPaymentSource,
      createdAt: now,
      updatedAt: now,
      captures: [],
      authorizations: []
    }
    store.orders.set(order.id, order)
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })

  app.get<{ Params: IdParams }>('/v2/checkout/orders/:id', async function showOrder (request) {
    return orderView(owned(orders, store.orders, request), base(request))
  })

  // https://developer.paypal.com/docs/api/orders/v2/#orders_patch: 204, no PayPal-Request-Id.
  app.patch<{ Params: IdParams }>('/v2/checkout/orders/:id', async function updateOrder (request, reply) {
    patchOrder(orders, owned(orders, store.orders, request), request.body)
    return reply.code(204).send()
  })

  app.post<{ Params: IdParams }>('/v2/checkout/orders/:id/capture', IDEMPOTENT, async function captureAnOrder (request, reply) {
    const order = captureOrder(orders, owned(orders, store.orders, request), base(request))
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })

  app.post<{ Params: IdParams }>('/v2/checkout/orders/:id/authorize', IDEMPOTENT, async function authorizeAnOrder (request, reply) {
    const order = authorizeOrder(orders, owned(orders, store.orders, request), base(request))
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })
}
