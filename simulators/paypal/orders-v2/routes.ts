import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { newTransactionId } from '../runtime/ids.ts'
import { notFound } from './errors.ts'
import {
  authorizeOrder, captureAuthorization, captureOrder, refundCapture, voidAuthorization, type Orders
} from './operations.ts'
import type { StoredAuthorization, StoredCapture, StoredOrder } from './store.ts'
import { isObject, parseCreateOrder, parseOptionalAmount } from './validation.ts'
import { authorizationView, captureView, orderRefundView, orderView, type V2Resource } from './views.ts'

interface IdParams { id: string }

// Every v2 call that changes something honours PayPal-Request-Id, within the Orders window.
const IDEMPOTENT = { config: { paypalIdempotent: true, paypalOrdersApi: true } }

/** `Prefer: return=representation` gets the whole resource; the default (minimal) its id, status and links. */
function shaped (request: FastifyRequest, resource: V2Resource): V2Resource {
  if (/return=representation/i.test(String(request.headers.prefer ?? ''))) return resource
  return { id: resource.id, status: resource.status, links: resource.links }
}

export function registerOrderRoutes (app: FastifyInstance, orders: Orders): void {
  const { runtime, store } = orders
  const base = (request: FastifyRequest): string => runtime.baseUrl(request)

  function owned<T extends { order?: StoredOrder, clientId?: string }> (map: Map<string, T>, request: FastifyRequest<{ Params: IdParams }>): T {
    const found = map.get(request.params.id)
    const owner = found?.clientId ?? found?.order?.clientId
    if (found === undefined || owner !== runtime.context(request).clientId) throw notFound()
    return found
  }

  app.post('/v2/checkout/orders', IDEMPOTENT, async function createOrder (request, reply) {
    const input = parseCreateOrder(request.body)
    store.counters.ordersCreated++
    const now = runtime.store.now()
    const order: StoredOrder = {
      id: newTransactionId(),
      clientId: runtime.context(request).clientId,
      intent: input.intent,
      // With an experience context PayPal answers PAYER_ACTION_REQUIRED and a payer-action link.
      status: input.returnUrl === undefined ? 'CREATED' : 'PAYER_ACTION_REQUIRED',
      purchaseUnit: input.purchaseUnit,
      currency: input.currency,
      totalMinor: input.totalMinor,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      createdAt: now,
      updatedAt: now,
      captures: [],
      authorizations: []
    }
    store.orders.set(order.id, order)
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })

  app.get<{ Params: IdParams }>('/v2/checkout/orders/:id', async function showOrder (request) {
    return orderView(owned(store.orders, request), base(request))
  })

  app.post<{ Params: IdParams }>('/v2/checkout/orders/:id/capture', IDEMPOTENT, async function captureAnOrder (request, reply) {
    const order = captureOrder(orders, owned(store.orders, request), base(request))
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })

  app.post<{ Params: IdParams }>('/v2/checkout/orders/:id/authorize', IDEMPOTENT, async function authorizeAnOrder (request, reply) {
    const order = authorizeOrder(orders, owned(store.orders, request), base(request))
    return reply.code(201).send(shaped(request, orderView(order, base(request))))
  })

  app.get<{ Params: IdParams }>('/v2/payments/authorizations/:id', async function showAuthorization (request) {
    return authorizationView(owned<StoredAuthorization>(store.authorizations, request), base(request))
  })

  app.post<{ Params: IdParams }>('/v2/payments/authorizations/:id/capture', IDEMPOTENT,
    async function captureAnAuthorization (request, reply) {
      const authorization = owned<StoredAuthorization>(store.authorizations, request)
      const { amountMinor, fields } = parseOptionalAmount(request.body, authorization.currency)
      const capture = captureAuthorization(orders, authorization, amountMinor, fields.final_capture !== false, base(request))
      return reply.code(201).send(shaped(request, captureView(capture, base(request))))
    })

  app.post<{ Params: IdParams }>('/v2/payments/authorizations/:id/void', IDEMPOTENT,
    async function voidAnAuthorization (request, reply: FastifyReply) {
      const authorization = voidAuthorization(orders, owned<StoredAuthorization>(store.authorizations, request), base(request))
      if (!/return=representation/i.test(String(request.headers.prefer ?? ''))) return reply.code(204).send()
      return authorizationView(authorization, base(request))
    })

  app.get<{ Params: IdParams }>('/v2/payments/captures/:id', async function showCapture (request) {
    return captureView(owned<StoredCapture>(store.captures, request), base(request))
  })

  app.post<{ Params: IdParams }>('/v2/payments/captures/:id/refund', IDEMPOTENT, async function refundACapture (request, reply) {
    const capture = owned<StoredCapture>(store.captures, request)
    const body = isObject(request.body) ? request.body : {}
    const { amountMinor, fields } = parseOptionalAmount(body, capture.currency)
    const refund = refundCapture(orders, capture, amountMinor, fields, base(request))
    return reply.code(201).send(shaped(request, orderRefundView(refund, base(request))))
  })

  app.get<{ Params: IdParams }>('/v2/payments/refunds/:id', async function showRefund (request) {
    const refund = store.refunds.get(request.params.id)
    if (refund === undefined || refund.capture.order.clientId !== runtime.context(request).clientId) throw notFound()
    return orderRefundView(refund, base(request))
  })
}
