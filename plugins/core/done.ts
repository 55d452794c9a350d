import { fileURLToPath } from 'node:url'
import { ArrayObject, TemplateRenderer, findCurrency, formatMinorUnits, type GetHumanStatus } from './engine/index.ts'
import type { DoneResponse } from './schemas.ts'

/** Keys whose values look secret; never shown on the done page, at any depth. */
const SECRET_KEY = /secret|password|passwd|api[_-]?key|access[_-]?token|refresh[_-]?token|signature|cvv|cvc|card[_-]?number/i

function scrub (value: unknown, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1))
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (!SECRET_KEY.test(key)) copy[key] = scrub(item, depth + 1)
  }
  return copy
}

/** Details as the buyer may see them: without the shop's `local` part and without secret-looking keys. */
export function publicDetails (details: unknown): Record<string, unknown> {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return {}
  const { local: _local, ...rest } = (details instanceof ArrayObject ? details.data : details) as Record<string, unknown>
  return scrub(rest, 0) as Record<string, unknown>
}

interface PaymentLike {
  number?: unknown
  totalAmount?: unknown
  currencyCode?: unknown
  details?: unknown
}

/** The done answer: the status and what the buyer may see of the payment behind the token. */
export function donePayload (status: GetHumanStatus): DoneResponse {
  const model = (status.firstModel ?? {}) as PaymentLike
  const hasDetailsBag = model.details !== null && typeof model.details === 'object'
  const payment: DoneResponse['payment'] = {
    details: publicDetails(hasDetailsBag ? model.details : model)
  }
  if (typeof model.number === 'string') payment.number = model.number
  if (typeof model.totalAmount === 'number') payment.totalAmount = model.totalAmount
  if (typeof model.currencyCode === 'string') payment.currencyCode = model.currencyCode
  return { status: status.value, payment }
}

const EXPLANATIONS: Record<string, [heading: string, explanation: string]> = {
  captured: ['Thank you', 'Your payment was received.'],
  authorized: ['Thank you', 'Your payment was authorized; it will be collected when your order ships.'],
  payedout: ['Payout sent', 'The payout was sent.'],
  pending: ['Payment pending', 'Your payment is being processed. We will confirm it as soon as it arrives.'],
  refunded: ['Payment refunded', 'This payment was refunded.'],
  canceled: ['Payment canceled', 'The payment was canceled; nothing was charged.'],
  failed: ['Payment failed', 'The payment did not go through; nothing was charged. You may try again.'],
  expired: ['Payment expired', 'The payment expired before it was completed.'],
  suspended: ['Payment suspended', 'This payment is suspended.'],
  new: ['Payment not started', 'The payment has not been started yet.'],
  unknown: ['Payment status unknown', 'We could not determine the status of this payment yet.']
}

const renderer = new TemplateRenderer({ PaywireFastify: fileURLToPath(new URL('./templates/', import.meta.url)) })

export async function renderDonePage (payload: DoneResponse): Promise<string> {
  const [heading, explanation] = EXPLANATIONS[payload.status] ?? EXPLANATIONS.unknown as [string, string]
  const { totalAmount, currencyCode = '' } = payload.payment
  const amount = totalAmount !== undefined && findCurrency(currencyCode) !== undefined
    ? formatMinorUnits(totalAmount, currencyCode)
    : String(totalAmount ?? '')
  const content = await renderer.render('@PaywireFastify/done.html', {
    heading, explanation, status: payload.status, number: payload.payment.number ?? '', amount, currencyCode
  })
  return await renderer.render('@PaywireCore/layout.html', { title: heading, content })
}
