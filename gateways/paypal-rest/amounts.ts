import type { PaymentAmounts } from '../../plugins/core/engine/index.ts'
import { relatedResources, reversedSale, saleOf, type PaypalRecord } from './details.ts'
import { fromPaypalAmount, reversedWithDisputes } from '../paypal-shared/index.ts'

/** Sale states in which the buyer's money was taken (and may since have gone back). */
const MONEY_TAKEN: ReadonlySet<string> = new Set(['completed', 'partially_refunded', 'refunded'])

/** PayPal's `{ total, currency }` in minor units (a reversal's negative total counts as what it took back); undefined when it is none. */
export function minorUnitsOf (amount: unknown): number | undefined {
  const { total, currency } = (amount ?? {}) as { total?: unknown, currency?: unknown }
  if (typeof total !== 'string' || typeof currency !== 'string') return undefined
  try {
    return fromPaypalAmount(total.replace(/^-/, ''), currency)
  } catch {
    return undefined
  }
}

function sum (amounts: Map<string, number>): number {
  let total = 0
  for (const amount of amounts.values()) total += amount
  return total
}

/**
 * How much moved, in minor units, from PayPal's view and Paywire's own records: the sale's
 * amount once taken, every refund whose money went back (state `completed`; a pending, failed
 * or cancelled one moved nothing), as PayPal lists it or, until it does, as Paywire made it
 * (each counted once, by PayPal's id), and reversals (chargebacks) Paywire heard of by webhook
 * (PAYMENT.SALE.REVERSED, kept in `paywire_reversals`) — or, for a sale whose `reason_code` says it
 * was reversed and no such webhook came, what was left of it, which is what PayPal takes back; or
 * what a dispute the shop lost took back, when that is heard of first (never both).
 * Undefined before there is a sale.
 */
export function paypalAmounts (record: PaypalRecord): PaymentAmounts | undefined {
  const sale = saleOf(record)
  if (sale === undefined) return undefined
  const captured = MONEY_TAKEN.has(sale.state) ? minorUnitsOf(sale.amount) ?? 0 : 0
  const refunds = new Map<string, number>()
  // PayPal's listing is newer than the answer Paywire kept: a refund it lists is counted by what it says.
  const listed = new Set<string>()
  for (const { refund } of relatedResources(record)) {
    if (typeof refund?.id !== 'string') continue
    listed.add(refund.id)
    if (refund.state === 'completed') refunds.set(refund.id, minorUnitsOf(refund.amount) ?? 0)
  }
  for (const entry of Array.isArray(record.paywire_refunds) ? record.paywire_refunds as Array<Record<string, any>> : []) {
    if (entry.state === 'completed' && typeof entry.id === 'string' && !listed.has(entry.id)) refunds.set(entry.id, minorUnitsOf(entry.amount) ?? 0)
  }
  const refunded = sum(refunds)
  const reversals = new Map<string, number>()
  for (const entry of Array.isArray(record.paywire_reversals) ? record.paywire_reversals as Array<Record<string, any>> : []) {
    if (typeof entry.id === 'string') reversals.set(entry.id, minorUnitsOf(entry.amount) ?? 0)
  }
  let reversed = sum(reversals)
  if (reversedSale(sale) && reversed === 0) reversed = Math.max(0, captured - refunded)
  return { captured, refunded, reversed: reversedWithDisputes(reversed, record, captured, refunded) }
}
