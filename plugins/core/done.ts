import { ArrayObject, findCurrency, formatMinorUnits, type GetHumanStatus, type PaymentAmounts } from './engine/index.ts'
import type { DoneResponse } from './schemas.ts'

/** Keys whose values look secret; never shown to the buyer, at any depth. */
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

/** Details without the shop's `local` part and without secret-looking keys. */
export function publicDetails (details: unknown): Record<string, unknown> {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return {}
  const { local: _local, ...rest } = (details instanceof ArrayObject ? details.data : details) as Record<string, unknown>
  return scrub(rest, 0) as Record<string, unknown>
}

/**
 * What a done answer may show besides status, number, amount and currency: each is opt-in,
 * since whoever holds a done link (a day long, and sent on through `Referer` by careless
 * pages) sees it. `details` are the gateway's details as publicDetails() leaves them;
 * `details.<key>` is one of them.
 */
export const DONE_FIELDS = ['description', 'clientEmail', 'clientId', 'gatewayName', 'details'] as const
export type DoneField = typeof DONE_FIELDS[number] | `details.${string}`

/** A human sentence per status: what a buyer reads on the done page, and `message` in its JSON. */
export const STATUS_MESSAGES: Readonly<Record<string, readonly [heading: string, message: string]>> = {
  captured: ['Thank you', 'Your payment was received.'],
  authorized: ['Thank you', 'Your payment was authorized; it will be collected when your order ships.'],
  payedout: ['Payout sent', 'The payout was sent.'],
  pending: ['Payment pending', 'Your payment is being processed. We will confirm it as soon as it arrives.'],
  refunded: ['Payment refunded', 'This payment was refunded.'],
  canceled: ['Payment canceled', 'The payment was canceled; nothing was charged.'],
  failed: ['Payment failed', 'The payment did not go through; nothing was charged. You may try again.'],
  expired: ['Payment expired', 'The payment expired before it was completed; nothing was charged.'],
  suspended: ['Payment suspended', 'This payment is suspended. Please contact the shop.'],
  new: ['Payment not started', 'The payment has not been started yet; nothing was charged.'],
  unknown: ['Payment status unknown', 'We could not determine the status of this payment yet. Please check again later.']
}

export function statusMessage (status: string): readonly [heading: string, message: string] {
  return STATUS_MESSAGES[status] ?? STATUS_MESSAGES.unknown as readonly [string, string]
}

/** The status in a buyer's words, for the done page's Status row ("Paid", not "captured"). */
export const STATUS_LABELS: Readonly<Record<string, string>> = {
  captured: 'Paid',
  authorized: 'Authorized, to be collected',
  payedout: 'Paid out',
  pending: 'Payment pending',
  refunded: 'Refunded',
  canceled: 'Canceled',
  failed: 'Not paid',
  expired: 'Expired',
  suspended: 'On hold',
  new: 'Not started',
  unknown: 'Unknown'
}

export function statusLabel (status: string): string {
  return STATUS_LABELS[status] ?? STATUS_LABELS.unknown as string
}

/**
 * What went back, when the gateway told the amounts: "Refunded 5.00 EUR of 19.99 EUR.", so
 * a partial refund reads as partial. Undefined when nothing went back.
 */
export function moneyBackMessage (amounts: PaymentAmounts | undefined, format: (minorUnits: number) => string): string | undefined {
  if (amounts === undefined) return undefined
  const lines: string[] = []
  if (amounts.refunded > 0) lines.push(`Refunded ${format(amounts.refunded)} of ${format(amounts.captured)}.`)
  if (amounts.reversed > 0) lines.push(`Reversed ${format(amounts.reversed)} of ${format(amounts.captured)}: the payer's bank took it back (a chargeback).`)
  return lines.length === 0 ? undefined : lines.join(' ')
}

interface PaymentLike {
  number?: unknown
  totalAmount?: unknown
  currencyCode?: unknown
  details?: unknown
  [field: string]: unknown
}

/** The done answer: the status, a human message, and what the buyer needs of the payment (more when opted in). */
export function donePayload (status: GetHumanStatus, fields: readonly DoneField[] = []): DoneResponse {
  const model = (status.firstModel ?? {}) as PaymentLike
  const payment: DoneResponse['payment'] = {}
  if (typeof model.number === 'string') payment.number = model.number
  if (typeof model.totalAmount === 'number') payment.totalAmount = model.totalAmount
  if (typeof model.currencyCode === 'string') payment.currencyCode = model.currencyCode
  const hasDetailsBag = model.details !== null && typeof model.details === 'object'
  for (const field of fields) {
    if (field === 'details') {
      payment.details = publicDetails(hasDetailsBag ? model.details : model)
    } else if (field.startsWith('details.')) {
      const key = field.slice('details.'.length)
      const value = publicDetails(hasDetailsBag ? model.details : model)[key]
      if (value !== undefined) payment.details = { ...payment.details, [key]: value }
    } else if (typeof model[field] === 'string' && model[field] !== '') {
      (payment as Record<string, unknown>)[field] = model[field]
    }
  }
  const currency = typeof model.currencyCode === 'string' ? findCurrency(model.currencyCode) : undefined
  const moneyBack = currency === undefined ? undefined : moneyBackMessage(status.amounts, (minor) => `${formatMinorUnits(minor, currency.alpha3)} ${currency.alpha3}`)
  const done: DoneResponse = { status: status.value, message: moneyBack ?? statusMessage(status.value)[1], payment }
  if (status.amounts !== undefined) done.amounts = { ...status.amounts }
  return done
}
