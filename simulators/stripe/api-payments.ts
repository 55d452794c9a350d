import type Stripe from 'stripe'
import type { FastifyInstance } from 'fastify'
import { invalidParam, missingParam, noSuch } from './errors.ts'
import { allowOnly, bool, currency, int, metadata, oneOf, str, stringList } from './params.ts'
import { body, json, query } from './protocol.ts'
import { expandParam, page, render } from './render.ts'
import type { Runtime } from './runtime.ts'

/*
 * PaymentIntents (https://docs.stripe.com/api/payment_intents): create, retrieve, confirm,
 * capture, cancel; Charges (https://docs.stripe.com/api/charges): retrieve, list by
 * `payment_intent`.
 */

const CANCELLATION_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned'] as const

export function registerPaymentRoutes (app: FastifyInstance, runtime: Runtime): void {
  const { store, payments } = runtime

  // https://docs.stripe.com/api/payment_intents/create
  app.post('/v1/payment_intents', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['amount', 'currency', 'capture_method', 'confirm', 'description', 'expand', 'metadata', 'payment_method', 'payment_method_types', 'return_url'])
    const amount = int(params, 'amount')
    if (amount === undefined) throw missingParam('amount')
    if (amount < 1) throw invalidParam('amount', 'Invalid positive integer')
    const code = currency(params, 'currency')
    if (code === undefined) throw missingParam('currency')
    const captureMethod = oneOf(params, 'capture_method', ['automatic', 'automatic_async', 'manual'] as const) ?? 'automatic_async'
    const confirm = bool(params, 'confirm') ?? false
    const paymentMethod = str(params, 'payment_method')
    const returnUrl = str(params, 'return_url')
    const expand = expandParam(params)
    const record = payments.create({
      amount,
      currency: code,
      captureMethod,
      metadata: metadata(params) ?? {},
      description: str(params, 'description') ?? null,
      paymentMethodTypes: stringList(params, 'payment_method_types') ?? ['card'],
      created: store.clock.unix()
    }, runtime.origin(request))
    if (paymentMethod !== undefined) payments.attach(record, paymentMethod)
    if (confirm) payments.confirm(record, undefined, runtime.origin(request), { ...(returnUrl === undefined ? {} : { returnUrl }) })
    return await json(reply, render(store, record.intent, expand))
  })

  // https://docs.stripe.com/api/payment_intents/retrieve
  app.get<{ Params: { id: string } }>('/v1/payment_intents/:id', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand', 'client_secret'])
    return await json(reply, render(store, payments.get(request.params.id).intent, expandParam(params)))
  })

  // https://docs.stripe.com/api/payment_intents/confirm
  app.post<{ Params: { id: string } }>('/v1/payment_intents/:id/confirm', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['expand', 'payment_method', 'return_url'])
    const record = payments.get(request.params.id)
    const returnUrl = str(params, 'return_url')
    const expand = expandParam(params)
    payments.confirm(record, str(params, 'payment_method'), runtime.origin(request), { ...(returnUrl === undefined ? {} : { returnUrl }) })
    return await json(reply, render(store, record.intent, expand))
  })

  // https://docs.stripe.com/api/payment_intents/capture
  app.post<{ Params: { id: string } }>('/v1/payment_intents/:id/capture', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['amount_to_capture', 'expand', 'metadata'])
    const record = payments.get(request.params.id)
    const amount = int(params, 'amount_to_capture')
    const expand = expandParam(params)
    const meta = metadata(params, 'metadata', record.intent.metadata)
    payments.capture(record, amount, runtime.origin(request))
    if (meta !== undefined) record.intent.metadata = meta
    return await json(reply, render(store, record.intent, expand))
  })

  // https://docs.stripe.com/api/payment_intents/cancel
  app.post<{ Params: { id: string } }>('/v1/payment_intents/:id/cancel', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['cancellation_reason', 'expand'])
    const record = payments.get(request.params.id)
    const reason = oneOf(params, 'cancellation_reason', CANCELLATION_REASONS) ?? null
    const expand = expandParam(params)
    payments.cancel(record, reason, runtime.origin(request))
    return await json(reply, render(store, record.intent, expand))
  })

  // https://docs.stripe.com/api/charges/retrieve
  app.get<{ Params: { id: string } }>('/v1/charges/:id', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand'])
    const charge = store.charges.get(request.params.id)
    if (charge === undefined) throw noSuch('charge', request.params.id)
    return await json(reply, render(store, charge, expandParam(params)))
  })

  // https://docs.stripe.com/api/charges/list
  app.get('/v1/charges', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand', 'limit', 'starting_after', 'ending_before', 'payment_intent'])
    const intent = str(params, 'payment_intent')
    const charges = [...store.charges.values()].reverse().filter((charge: Stripe.Charge) => intent === undefined || charge.payment_intent === intent)
    return await json(reply, page(store, charges, params, '/v1/charges'))
  })
}
