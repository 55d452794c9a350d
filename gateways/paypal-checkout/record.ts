import { randomBytes, randomUUID } from 'node:crypto'
import { ArrayObject, HumanStatus, type HumanStatusValue, type PaymentAmounts } from '../../plugins/core/engine/index.ts'
import { fromPaypalAmount, lostDisputesAmong, reversedWithDisputes, withDisputes } from '../paypal-shared/index.ts'

/**
 * A PayPal order's details as one mutable record in the Payment's details bag: PayPal's order
 * fields (id, intent, status, purchase_units, payer, links...) plus Paywire's bookkeeping under
 * `paywire_*` keys, which are never sent to PayPal.
 */
export type CheckoutRecord = Record<string, any>

export function recordOf (model: unknown): CheckoutRecord | undefined {
  return model instanceof ArrayObject ? model.data : undefined
}

/** Ends the shop reached on its own (the buyer cancelled, PayPal refused the order for good). */
export type LocalEnd = 'cancelled' | 'failed' | 'expired'

/**
 * The PayPal-Request-Id of one operation on one order, stored with the payment so a retry (even
 * from another process, after a crash) sends the same id and PayPal does the work once.
 */
export function requestIdFor (record: CheckoutRecord, operation: string): string {
  record.paywire_key ??= randomUUID()
  const ids = (record.paywire_request_ids ??= {}) as Record<string, string>
  ids[operation] ??= `${record.paywire_key as string}-${operation}`
  return ids[operation]
}

/** An id no other call of this payment ever had: for each refund, and after a refusal the buyer can put right. */
export function uniqueRequestId (record: CheckoutRecord, operation: string): string {
  record.paywire_key ??= randomUUID()
  return `${record.paywire_key as string}-${operation}-${randomBytes(6).toString('hex')}`
}

/** The refused id is kept and never sent again; the next attempt gets a new one. */
export function renewRequestId (record: CheckoutRecord, operation: string): void {
  const ids = (record.paywire_request_ids ??= {}) as Record<string, string>
  if (ids[operation] !== undefined) ((record.paywire_refused_request_ids ??= []) as string[]).push(ids[operation])
  ids[operation] = uniqueRequestId(record, operation)
}

export function link (record: CheckoutRecord, rel: string): string | undefined {
  const links = Array.isArray(record.links) ? record.links as Array<{ rel?: unknown, href?: unknown }> : []
  const found = links.find((candidate) => candidate.rel === rel)
  return typeof found?.href === 'string' ? found.href : undefined
}

function payments (record: CheckoutRecord): Record<string, any> {
  const units = Array.isArray(record.purchase_units) ? record.purchase_units as Array<Record<string, any>> : []
  return units[0]?.payments ?? {}
}

export function capturesOf (record: CheckoutRecord): Array<Record<string, any>> {
  return Array.isArray(payments(record).captures) ? payments(record).captures : []
}

export function authorizationOf (record: CheckoutRecord): Record<string, any> | undefined {
  const list = payments(record).authorizations
  return Array.isArray(list) ? list[0] : undefined
}

export function refundsOf (record: CheckoutRecord): Array<Record<string, any>> {
  return Array.isArray(payments(record).refunds) ? payments(record).refunds : []
}

/** How long a PayPal authorization is valid: https://developer.paypal.com/docs/checkout/advanced/authorization-honor (29 days; 3 of honor). */
const AUTHORIZATION_VALID_MS = 29 * 24 * 60 * 60 * 1000

/**
 * When the order's authorization lapses (ISO 8601): PayPal's `expiration_time` (the Payments v2
 * authorization resource), else 29 days after it was created; undefined without one that is
 * still open (CREATED) or when PayPal gave neither time.
 */
export function authorizationExpiry (record: CheckoutRecord): string | undefined {
  const authorization = authorizationOf(record)
  if (authorization?.status !== 'CREATED') return undefined
  const stated = Date.parse(authorization.expiration_time)
  if (!Number.isNaN(stated)) return new Date(stated).toISOString()
  const created = Date.parse(authorization.create_time)
  return Number.isNaN(created) ? undefined : new Date(created + AUTHORIZATION_VALID_MS).toISOString()
}

/** Created at PayPal and waiting for the buyer (or for Paywire to capture what the buyer approved). */
export function awaitsBuyer (record: CheckoutRecord): boolean {
  if (record.paywire_state !== undefined) return false
  return record.status === undefined || ['CREATED', 'SAVED', 'PAYER_ACTION_REQUIRED', 'APPROVED'].includes(record.status)
}

const LOCAL_ENDS: Record<LocalEnd, HumanStatusValue> = {
  cancelled: HumanStatus.CANCELED,
  failed: HumanStatus.FAILED,
  expired: HumanStatus.EXPIRED
}

/** Captures decide once there are any: money taken, then refunded, then waiting, else declined. */
function capturesStatus (captures: Array<Record<string, any>>): HumanStatusValue {
  const statuses = new Set(captures.map((capture) => capture.status))
  if (statuses.has('COMPLETED')) return HumanStatus.CAPTURED
  if (statuses.has('PARTIALLY_REFUNDED') || statuses.has('REFUNDED')) return HumanStatus.REFUNDED
  if (statuses.has('PENDING')) return HumanStatus.PENDING
  return HumanStatus.FAILED
}

const AUTHORIZATION_STATUSES: Record<string, HumanStatusValue> = {
  CREATED: HumanStatus.AUTHORIZED,
  PENDING: HumanStatus.PENDING,
  DENIED: HumanStatus.FAILED,
  VOIDED: HumanStatus.CANCELED
}

/**
 * The order's status together with its captures and authorization (table in the README): a
 * COMPLETED order holds a COMPLETED, PENDING or DECLINED capture, or an authorization.
 */
export function paypalStatus (record: CheckoutRecord): HumanStatusValue {
  return withDisputes(orderStatus(record), record)
}

function orderStatus (record: CheckoutRecord): HumanStatusValue {
  const local = LOCAL_ENDS[record.paywire_state as LocalEnd]
  if (local !== undefined) return local
  switch (record.status) {
    case undefined:
      return HumanStatus.NEW
    case 'CREATED':
    case 'SAVED':
    case 'PAYER_ACTION_REQUIRED':
    case 'APPROVED':
      return HumanStatus.PENDING
    case 'VOIDED':
      return HumanStatus.CANCELED
    case 'COMPLETED': {
      const captures = capturesOf(record)
      if (captures.length > 0) return capturesStatus(captures)
      return AUTHORIZATION_STATUSES[authorizationOf(record)?.status] ?? HumanStatus.UNKNOWN
    }
    default:
      return HumanStatus.UNKNOWN
  }
}

export function minorUnitsOf (amount: unknown): number {
  const { value, currency_code: currency } = (amount ?? {}) as { value?: unknown, currency_code?: unknown }
  if (typeof value !== 'string' || typeof currency !== 'string') return 0
  return fromPaypalAmount(value, currency)
}

const MONEY_TAKEN: ReadonlySet<string> = new Set(['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED'])

/**
 * How much moved, in minor units: captures that took money, refunds whose money went back
 * (COMPLETED; a PENDING, FAILED or CANCELLED one moved nothing) as PayPal lists them or, until
 * it does, as Paywire made them (each counted once, by PayPal's id) and reversals heard of by webhook (which PayPal lists
 * among the refunds: counted as reversed, not refunded) or by a dispute the shop lost (whichever
 * arrives first, never both). A listed refund Paywire did not make (no ledger entry, no `custom_id`
 * of its own) is the reversal of a lost dispute when a Sync learns of the dispute first: reversed,
 * as the webhook would count it. Undefined before any capture.
 */
export function checkoutAmounts (record: CheckoutRecord): PaymentAmounts | undefined {
  const captures = capturesOf(record)
  if (captures.length === 0) return undefined
  const captured = captures.filter((capture) => MONEY_TAKEN.has(capture.status)).reduce((sum, capture) => sum + minorUnitsOf(capture.amount), 0)
  const reversals = new Map<string, number>()
  for (const entry of (record.paywire_reversals ?? []) as Array<Record<string, any>>) reversals.set(entry.id, minorUnitsOf(entry.amount))
  const refunds = new Map<string, number>()
  const ledger = new Set(((record.paywire_refunds ?? []) as Array<Record<string, any>>).map((entry) => entry.id))
  // PayPal's listing is newer than the answer Paywire kept: a refund it lists is counted by what it says.
  const listed = new Set<string>()
  let foreign = 0
  for (const refund of refundsOf(record)) {
    listed.add(refund.id)
    if (refund.status !== 'COMPLETED') continue
    refunds.set(refund.id, minorUnitsOf(refund.amount))
    if (!ledger.has(refund.id) && !reversals.has(refund.id) && refund.custom_id === undefined) foreign += minorUnitsOf(refund.amount)
  }
  for (const entry of (record.paywire_refunds ?? []) as Array<Record<string, any>>) {
    if (entry.state === 'completed' && !listed.has(entry.id)) refunds.set(entry.id, minorUnitsOf(entry.amount))
  }
  for (const id of reversals.keys()) refunds.delete(id)
  const sum = (values: Map<string, number>): number => [...values.values()].reduce((total, value) => total + value, 0)
  const recorded = sum(reversals)
  const byDisputes = lostDisputesAmong(foreign, recorded, record)
  const refunded = sum(refunds) - byDisputes
  return { captured, refunded, reversed: reversedWithDisputes(recorded + byDisputes, record, captured, refunded) }
}
