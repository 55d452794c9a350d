import type { FastifyInstance, FastifyRequest } from 'fastify'
import { captureAuthorization, expireAuthorizations, reauthorize, voidAuthorization } from './authorizations.ts'
import { notFound } from './errors.ts'
import type { Orders } from './operations.ts'
import { refundCapture } from './refunds.ts'
import { owned, shaped, wantsRepresentation, type IdParams } from './routes.ts'
import type { StoredAuthorization, StoredCapture } from './store.ts'
import { parseOptionalAmount } from './validation.ts'
import { authorizationView, captureView, orderRefundView } from './views.ts'

// Payments v2 keeps request ids 45 days (payments_payment_v2.json, PayPal-Request-Id).
const IDEMPOTENT = { config: { paypalIdempotent: true, paypalRequestIdWindow: 'payments-v2' } } as const

/** Payments v2: authorizations (capture, void, reauthorize), captures (refund) and refunds. */
export function registerPaymentRoutes (app: FastifyInstance, orders: Orders): void {
  const { runtime, store } = orders
  const base = (request: FastifyRequest): string => runtime.baseUrl(request)

  function authorization (request: FastifyRequest<{ Params: IdParams }>): StoredAuthorization {
    expireAuthorizations(orders, base(request))
    return owned<StoredAuthorization>(orders, store.authorizations, request)
  }

  app.get<{ Params: IdParams }>('/v2/payments/authorizations/:id', async function showAuthorization (request) {
    return authorizationView(authorization(request), base(request))
  })

  app.post<{ Params: IdParams }>('/v2/payments/authorizations/:id/capture', IDEMPOTENT,
    async function captureAnAuthorization (request, reply) {
      const found = authorization(request)
      const { amountMinor, fields } = parseOptionalAmount(request.body, found.currency)
      const capture = captureAuthorization(orders, found, amountMinor, fields.final_capture !== false, base(request))
      return reply.code(201).send(shaped(request, captureView(capture, base(request))))
    })

  app.post<{ Params: IdParams }>('/v2/payments/authorizations/:id/reauthorize', IDEMPOTENT,
    async function reauthorizeAnAuthorization (request, reply) {
      const found = authorization(request)
      const { amountMinor } = parseOptionalAmount(request.body, found.currency)
      const renewed = reauthorize(orders, found, amountMinor, base(request))
      return reply.code(201).send(shaped(request, authorizationView(renewed, base(request))))
    })

  app.post<{ Params: IdParams }>('/v2/payments/authorizations/:id/void', IDEMPOTENT,
    async function voidAnAuthorization (request, reply) {
      const voided = voidAuthorization(orders, authorization(request), base(request))
      if (!wantsRepresentation(request)) return reply.code(204).send()
      return authorizationView(voided, base(request))
    })

  app.get<{ Params: IdParams }>('/v2/payments/captures/:id', async function showCapture (request) {
    return captureView(owned<StoredCapture>(orders, store.captures, request), base(request))
  })

  app.post<{ Params: IdParams }>('/v2/payments/captures/:id/refund', IDEMPOTENT, async function refundACapture (request, reply) {
    const capture = owned<StoredCapture>(orders, store.captures, request)
    const { amountMinor, fields } = parseOptionalAmount(request.body, capture.currency)
    const refund = refundCapture(orders, capture, amountMinor, fields, base(request))
    return reply.code(201).send(shaped(request, orderRefundView(refund, base(request))))
  })

  app.get<{ Params: IdParams }>('/v2/payments/refunds/:id', async function showRefund (request) {
    const refund = store.refunds.get(request.params.id)
    if (refund === undefined || refund.capture.order.clientId !== runtime.context(request).clientId) throw notFound()
    return orderRefundView(refund, base(request))
  })
}
