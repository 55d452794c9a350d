import type Stripe from 'stripe'
import type { FastifyInstance } from 'fastify'
import { invalidRequest, missingParam, noSuch } from './errors.ts'
import { allowOnly, int, metadata, oneOf, str } from './params.ts'
import { body, json, query } from './protocol.ts'
import { expandParam, page, render } from './render.ts'
import type { Runtime } from './runtime.ts'

/*
 * Refunds (https://docs.stripe.com/api/refunds): create by `payment_intent` or `charge`, retrieve,
 * list. Disputes (https://docs.stripe.com/api/disputes): retrieve, list, close.
 */

const REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const

export function registerRefundRoutes (app: FastifyInstance, runtime: Runtime): void {
  const { store, refunds, disputes, payments } = runtime

  // https://docs.stripe.com/api/refunds/create
  app.post('/v1/refunds', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['amount', 'charge', 'expand', 'metadata', 'payment_intent', 'reason'])
    const chargeId = str(params, 'charge')
    const intentId = str(params, 'payment_intent')
    if (chargeId !== undefined && intentId !== undefined) throw invalidRequest('You may only specify one of these parameters: charge, payment_intent.', 'parameters_exclusive')
    let charge: Stripe.Charge | undefined
    if (chargeId !== undefined) {
      charge = store.charges.get(chargeId)
      if (charge === undefined) throw noSuch('charge', chargeId, 'charge')
    } else if (intentId !== undefined) {
      const { intent } = payments.get(intentId, 'payment_intent')
      charge = intent.latest_charge === null ? undefined : store.charges.get(intent.latest_charge as string)
      if (charge === undefined || intent.status !== 'succeeded') {
        throw invalidRequest(`This PaymentIntent (${intentId}) does not have a successful charge to refund.`, 'charge_not_refundable', 'payment_intent')
      }
    } else throw missingParam('charge')
    const amount = int(params, 'amount')
    const reason = oneOf(params, 'reason', REASONS) ?? null
    const meta = metadata(params) ?? {}
    const expand = expandParam(params)
    const refund = refunds.create(charge, amount, reason, meta, runtime.origin(request))
    return await json(reply, render(store, refund, expand))
  })

  // https://docs.stripe.com/api/refunds/retrieve
  app.get<{ Params: { id: string } }>('/v1/refunds/:id', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand'])
    return await json(reply, render(store, refunds.get(request.params.id), expandParam(params)))
  })

  // https://docs.stripe.com/api/refunds/list
  app.get('/v1/refunds', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['charge', 'expand', 'limit', 'starting_after', 'ending_before', 'payment_intent'])
    const charge = str(params, 'charge')
    const intent = str(params, 'payment_intent')
    const items = [...store.refunds.values()].reverse()
      .filter((refund) => (charge === undefined || refund.charge === charge) && (intent === undefined || refund.payment_intent === intent))
    return await json(reply, page(store, items, params, '/v1/refunds'))
  })

  // https://docs.stripe.com/api/disputes/retrieve
  app.get<{ Params: { id: string } }>('/v1/disputes/:id', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand'])
    return await json(reply, render(store, disputes.get(request.params.id), expandParam(params)))
  })

  // https://docs.stripe.com/api/disputes/list
  app.get('/v1/disputes', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['charge', 'expand', 'limit', 'starting_after', 'ending_before', 'payment_intent'])
    const charge = str(params, 'charge')
    const intent = str(params, 'payment_intent')
    const items = [...store.disputes.values()].reverse()
      .filter((dispute) => (charge === undefined || dispute.charge === charge) && (intent === undefined || dispute.payment_intent === intent))
    return await json(reply, page(store, items, params, '/v1/disputes'))
  })

  // https://docs.stripe.com/api/disputes/close: closing accepts the loss.
  app.post<{ Params: { id: string } }>('/v1/disputes/:id/close', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['expand'])
    const dispute = disputes.get(request.params.id)
    const expand = expandParam(params)
    disputes.close(dispute.id, 'lost', runtime.origin(request))
    return await json(reply, render(store, dispute, expand))
  })
}
