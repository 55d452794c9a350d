import type { FastifyInstance } from 'fastify'
import { invalidParam, invalidRequest, missingParam, noSuch } from './errors.ts'
import type { FormObject } from './form.ts'
import { allowOnly, currency, int, list, metadata, obj, oneOf, requiredStr, str } from './params.ts'
import { body, json, query } from './protocol.ts'
import { expandParam, page, render } from './render.ts'
import type { Runtime } from './runtime.ts'
import type { SessionItem } from './store.ts'

/*
 * Checkout Sessions (https://docs.stripe.com/api/checkout/sessions): create (mode `payment`,
 * `line_items` with `price_data`), retrieve, expire, list (by `payment_intent`).
 */

const CREATE_PARAMS = ['cancel_url', 'client_reference_id', 'currency', 'customer_email', 'expand', 'expires_at', 'line_items', 'metadata', 'mode', 'payment_intent_data', 'payment_method_types', 'success_url']

function lineItems (params: FormObject): { items: SessionItem[], currency: string } {
  const raw = list(params, 'line_items')
  if (raw === undefined || raw.length === 0) throw missingParam('line_items')
  let code: string | undefined
  const items = raw.map((value, index) => {
    const prefix = `line_items[${index}]`
    if (typeof value === 'string' || Array.isArray(value)) throw invalidParam(prefix, `Invalid object: ${prefix} must be an object`)
    allowOnly(value, ['price', 'price_data', 'quantity'], prefix)
    // Prices are not modelled: a price id names nothing here (https://docs.stripe.com/api/checkout/sessions/create#create_checkout_session-line_items-price).
    const price = str(value, 'price', `${prefix}[price]`)
    if (price !== undefined) throw invalidRequest(`No such price: '${price}'`, 'resource_missing', `${prefix}[price]`, 404)
    const data = obj(value, 'price_data', `${prefix}[price_data]`)
    if (data === undefined) throw missingParam(`${prefix}[price_data]`)
    allowOnly(data, ['currency', 'product_data', 'unit_amount', 'tax_behavior'], `${prefix}[price_data]`)
    const itemCurrency = currency(data, 'currency', `${prefix}[price_data][currency]`)
    if (itemCurrency === undefined) throw missingParam(`${prefix}[price_data][currency]`)
    if (code !== undefined && code !== itemCurrency) throw invalidParam(`${prefix}[price_data][currency]`, 'All line items must use the same currency.')
    code = itemCurrency
    const unitAmount = int(data, 'unit_amount', `${prefix}[price_data][unit_amount]`)
    if (unitAmount === undefined) throw missingParam(`${prefix}[price_data][unit_amount]`)
    if (unitAmount < 0) throw invalidParam(`${prefix}[price_data][unit_amount]`, 'Invalid non-negative integer')
    const product = obj(data, 'product_data', `${prefix}[price_data][product_data]`)
    if (product === undefined) throw missingParam(`${prefix}[price_data][product_data]`)
    const quantity = int(value, 'quantity', `${prefix}[quantity]`)
    if (quantity === undefined) throw missingParam(`${prefix}[quantity]`)
    if (quantity < 1) throw invalidParam(`${prefix}[quantity]`, 'Invalid positive integer')
    return { name: requiredStr(product, 'name', `${prefix}[price_data][product_data][name]`), unitAmount, quantity }
  })
  return { items, currency: code as string }
}

export function registerCheckoutRoutes (app: FastifyInstance, runtime: Runtime): void {
  const { store, checkout } = runtime

  // https://docs.stripe.com/api/checkout/sessions/create
  app.post('/v1/checkout/sessions', async (request, reply) => {
    const params = body(request)
    allowOnly(params, CREATE_PARAMS)
    const mode = str(params, 'mode')
    if (mode === undefined) throw missingParam('mode')
    if (mode !== 'payment') throw invalidParam('mode', `The simulator supports mode "payment" only, got "${mode}".`)
    const { items, currency: code } = lineItems(params)
    const now = store.clock.unix()
    const expiresAt = int(params, 'expires_at')
    // https://docs.stripe.com/payments/checkout/managing-limited-inventory: 30 minutes to 24 hours after creation.
    if (expiresAt !== undefined && (expiresAt < now + 1800 || expiresAt > now + 86_400)) {
      throw invalidParam('expires_at', 'The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.')
    }
    const intentData = obj(params, 'payment_intent_data') ?? {}
    allowOnly(intentData, ['capture_method', 'description', 'metadata'], 'payment_intent_data')
    const record = checkout.create({
      items,
      currency: code,
      successUrl: str(params, 'success_url') ?? null,
      cancelUrl: str(params, 'cancel_url') ?? null,
      clientReferenceId: str(params, 'client_reference_id') ?? null,
      customerEmail: str(params, 'customer_email') ?? null,
      metadata: metadata(params) ?? {},
      expiresAt,
      intentData: {
        captureMethod: oneOf(intentData, 'capture_method', ['automatic', 'manual'] as const) ?? 'automatic',
        metadata: metadata(intentData, 'metadata') ?? {},
        description: str(intentData, 'description') ?? null
      }
    })
    return await json(reply, render(store, record.session, expandParam(params)))
  })

  // https://docs.stripe.com/api/checkout/sessions/retrieve
  app.get<{ Params: { id: string } }>('/v1/checkout/sessions/:id', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand'])
    return await json(reply, render(store, checkout.get(request.params.id).session, expandParam(params)))
  })

  // https://docs.stripe.com/api/checkout/sessions/expire
  app.post<{ Params: { id: string } }>('/v1/checkout/sessions/:id/expire', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['expand'])
    const record = checkout.get(request.params.id)
    const expand = expandParam(params)
    checkout.expire(record, runtime.origin(request))
    return await json(reply, render(store, record.session, expand))
  })

  // https://docs.stripe.com/api/checkout/sessions/list
  app.get('/v1/checkout/sessions', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['expand', 'limit', 'starting_after', 'ending_before', 'payment_intent', 'status'])
    const intent = str(params, 'payment_intent')
    const status = oneOf(params, 'status', ['open', 'complete', 'expired'] as const)
    if (intent !== undefined && !store.intents.has(intent)) throw noSuch('payment_intent', intent, 'payment_intent')
    const sessions = [...store.sessions.values()].reverse().map((record) => record.session)
      .filter((session) => (intent === undefined || session.payment_intent === intent) && (status === undefined || session.status === status))
    return await json(reply, page(store, sessions, params, '/v1/checkout/sessions'))
  })
}
