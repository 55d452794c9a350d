/*
 * The checkout form's checks, before any payment exists: the form comes from the shop's own
 * page, names a gateway the shop has, and an amount the gateway can take. What the buyer typed
 * comes back with the message, so "Pay" again charges what they meant.
 */
import { Type, type Static } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import { formatMinorUnits, parseToMinorUnits, type Paywire } from 'paywire'

export const CheckoutForm = Type.Object({
  // A sign is let through to be refused with the minimum's message, not a puzzling "like 19.99".
  amount: Type.String({ pattern: '^\\s*-?\\d{1,12}([.,]\\d{1,3})?\\s*$' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$' }),
  gateway: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 127 })),
  email: Type.Optional(Type.String({ maxLength: 254 }))
})
export type CheckoutForm = Static<typeof CheckoutForm>

export interface CheckoutValues {
  amount: string
  currency: string
  gateway: string
  description: string
}

export const DEFAULT_VALUES: CheckoutValues = { amount: '19.99', currency: 'EUR', gateway: '', description: 'Demo order' }

/** An order the form allows: the preparation procedure's input. */
export interface CheckoutOrder {
  gateway: string
  totalAmount: number
  currency: string
  description: string
  email: string
}

export type CheckoutResult =
  | { order: CheckoutOrder }
  | { refused: { statusCode: 400 | 403, message: string, values: CheckoutValues } }

/** The form's fields as the buyer sent them, cut to a sane length: what the page shows again. */
export function formValues (body: unknown): CheckoutValues {
  const given = (body ?? {}) as Partial<Record<keyof CheckoutValues, unknown>>
  const text = (value: unknown, fallback: string) => typeof value === 'string' ? value.slice(0, 256) : fallback
  return {
    amount: text(given.amount, ''),
    currency: text(given.currency, DEFAULT_VALUES.currency),
    gateway: text(given.gateway, ''),
    description: text(given.description, '')
  }
}

/**
 * Cross-site form posts are refused: a browser names the page's origin in Origin (and
 * Sec-Fetch-Site) on a POST, and another site's page must not start a payment here.
 */
function sameOrigin (request: FastifyRequest): boolean {
  if (request.headers['sec-fetch-site'] === 'cross-site') return false
  const origin = request.headers.origin
  return origin === undefined || origin === `${request.protocol}://${request.host}`
}

/**
 * The order the checkout form asks for, or why it is refused. Gateways take at least one minor
 * unit (PayPal refuses a zero amount; a payment of nothing is no payment).
 */
export function readCheckoutForm (request: FastifyRequest, paywire: Paywire): CheckoutResult {
  const values = formValues(request.body)
  const refuse = (statusCode: 400 | 403, message: string): CheckoutResult => ({ refused: { statusCode, message, values } })
  if (!sameOrigin(request)) return refuse(403, 'This form can only be sent from the shop\'s own page.')
  if (request.validationError !== undefined) return refuse(400, 'Please enter an amount like 19.99 and choose a currency.')
  const form = request.body as CheckoutForm
  if (!paywire.hasGateway(form.gateway)) return refuse(400, `Unknown payment method "${form.gateway}".`)
  const amount = form.amount.trim().replace(',', '.')
  let totalAmount: number
  try {
    totalAmount = parseToMinorUnits(amount.replace(/^-/, ''), form.currency)
  } catch {
    return refuse(400, `${form.amount} is not a valid amount in ${form.currency}.`)
  }
  if (amount.startsWith('-') || totalAmount < 1) return refuse(400, `Please enter an amount of at least ${formatMinorUnits(1, form.currency)} ${form.currency}.`)
  return { order: { gateway: form.gateway, totalAmount, currency: form.currency, description: form.description ?? '', email: form.email ?? '' } }
}
