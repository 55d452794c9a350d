import { PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED, PAYWIRE_ERR_VALIDATION } from '../errors.ts'
import { attentionOf, type AttentionOptions } from '../reconcile/attention.ts'
import { HUMAN_STATUSES, type HumanStatusValue } from '../requests/get-status.ts'
import type { PaymentState } from '../requests/payment-state.ts'
import { isPaymentSearch, type PaymentFacets, type PaymentQuery, type PaymentSearch } from './payment-search.ts'

/*
 * What every backend's PaymentSearch shares: the facets of a written record, a query checked
 * and normalized once (ISO times compare as strings), the match of one payment's facets, and
 * the opaque keyset cursor (createdAt, id) that keeps pages stable while payments are added.
 */

/** Most payments one page may hold (the GraphQL plugin's maxPageSize goes up to it too). */
export const MAX_PAGE_SIZE = 1000

function text (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** A time in the exact form toISOString() writes, but for the day's range in its month (checked below). */
const ISO_FORM = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/

function daysInMonth (year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  // 31 days in January, March, May, July, August, October and December.
  return 30 + ((month + (month >> 3)) & 1)
}

/**
 * `new Date(time).toISOString()` for a time Date.parse() reads, undefined for one it does not.
 * That costs ~1 µs, twice per write of a payment, and the times a storage stamps are written by
 * it already: one in its form, its day within its month (the parser rolls Feb 30 and 24:00 over),
 * is its own result, and needs no parse at all.
 */
function isoTime (time: string): string | undefined {
  if (ISO_FORM.test(time) && Number(time.slice(8, 10)) <= daysInMonth(Number(time.slice(0, 4)), Number(time.slice(5, 7)))) return time
  const ms = Date.parse(time)
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString()
}

/** The distinct provider ids that are text, in the order the reading gave them. */
function providerIdsOf (state: PaymentState): string[] {
  const ids: string[] = []
  if (state.providerIds === undefined) return ids
  for (const value of Object.values(state.providerIds)) {
    if (typeof value === 'string' && value !== '' && !ids.includes(value)) ids.push(value)
  }
  return ids
}

/**
 * The facets of a Payment record as its gateway's reader read it (`state`); undefined for
 * a record without its storage's times (not a Payment as Paywire stores it).
 */
export function paymentFacets (id: string, record: Record<string, unknown>, gatewayName: string, state: PaymentState,
  attention?: AttentionOptions): PaymentFacets | undefined {
  const createdText = text(record.createdAt)
  const updatedText = text(record.updatedAt)
  const createdAt = createdText === undefined ? undefined : isoTime(createdText)
  const updatedAt = updatedText === undefined ? undefined : isoTime(updatedText)
  if (createdAt === undefined || updatedAt === undefined) return undefined
  const due = attentionOf(state, updatedText as string, attention)
  // Field by field, in the order the stored JSON has always had them (optional ones in their places).
  const facets: { -readonly [K in keyof PaymentFacets]: PaymentFacets[K] } = {
    id,
    gatewayName,
    status: state.status,
    currencyCode: text(record.currencyCode) ?? '',
    totalAmount: Number.isSafeInteger(record.totalAmount) ? record.totalAmount as number : 0
  } as PaymentFacets
  if (state.amounts !== undefined) facets.amounts = { ...state.amounts }
  facets.createdAt = createdAt
  facets.updatedAt = updatedAt
  facets.providerIds = providerIdsOf(state)
  if (due !== undefined) {
    facets.attentionAt = due.at
    facets.attentionReason = due.reason
  }
  return facets
}

/** Where a page starts: after this payment, in newest-first order. */
export interface SearchCursor {
  createdAt: string
  id: string
}

/** A PaymentQuery checked, its times as ISO strings. */
export interface NormalizedQuery {
  statuses?: ReadonlySet<string>
  gatewayName?: string
  currencyCode?: string
  createdFrom?: string
  createdTo?: string
  updatedFrom?: string
  updatedTo?: string
  amountMin?: number
  amountMax?: number
  providerId?: string
  needsAttention?: boolean
  now: string
  first: number
  after?: SearchCursor
}

function invalid (field: string, problem: string): Error {
  return Object.assign(new PAYWIRE_ERR_VALIDATION(field, problem), { field })
}

function time (value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined
  const parsed = typeof value === 'string' ? Date.parse(value) : NaN
  if (Number.isNaN(parsed)) throw invalid(field, 'must be an ISO 8601 date and time')
  return new Date(parsed).toISOString()
}

function amount (value: number | undefined, field: string): number | undefined {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw invalid(field, 'must be a whole number of minor units, 0 or more')
  return value
}

function range<T extends string | number> (from: T | undefined, to: T | undefined, fields: [string, string]): void {
  if (from !== undefined && to !== undefined && from > to) throw invalid(fields[0], `must not be after ${fields[1]}`)
}

export function encodeSearchCursor (cursor: SearchCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url')
}

export function decodeSearchCursor (cursor: string): SearchCursor {
  let data: unknown
  try {
    data = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    // Reported below, like any cursor a search did not make.
  }
  if (!Array.isArray(data) || data.length !== 2 || typeof data[0] !== 'string' || typeof data[1] !== 'string' ||
    Number.isNaN(Date.parse(data[0])) || new Date(data[0]).toISOString() !== data[0]) {
    throw invalid('after', 'is not the endCursor of a payment search')
  }
  return { createdAt: data[0], id: data[1] }
}

/** Checks a query (PAYWIRE_ERR_VALIDATION naming the field) and normalizes it for the backends. */
export function normalizeQuery (query: PaymentQuery): NormalizedQuery {
  if (!Number.isSafeInteger(query.first) || query.first < 1 || query.first > MAX_PAGE_SIZE) throw invalid('first', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
  const statuses = query.status === undefined ? undefined : new Set<string>(query.status)
  for (const status of statuses ?? []) {
    if (!HUMAN_STATUSES.includes(status as HumanStatusValue)) throw invalid('status', `has "${String(status).slice(0, 40)}", not one of ${HUMAN_STATUSES.join(', ')}`)
  }
  const now = query.now ?? new Date()
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw invalid('now', 'must be a valid Date')
  const normalized: NormalizedQuery = {
    ...(statuses === undefined ? {} : { statuses }),
    ...(query.gatewayName === undefined ? {} : { gatewayName: query.gatewayName }),
    ...(query.currencyCode === undefined ? {} : { currencyCode: query.currencyCode }),
    ...(query.providerId === undefined ? {} : { providerId: query.providerId }),
    ...(query.needsAttention === undefined ? {} : { needsAttention: query.needsAttention }),
    createdFrom: time(query.createdFrom, 'createdFrom'),
    createdTo: time(query.createdTo, 'createdTo'),
    updatedFrom: time(query.updatedFrom, 'updatedFrom'),
    updatedTo: time(query.updatedTo, 'updatedTo'),
    amountMin: amount(query.amountMin, 'amountMin'),
    amountMax: amount(query.amountMax, 'amountMax'),
    now: now.toISOString(),
    first: query.first,
    ...(query.after === undefined ? {} : { after: decodeSearchCursor(query.after) })
  }
  range(normalized.createdFrom, normalized.createdTo, ['createdFrom', 'createdTo'])
  range(normalized.updatedFrom, normalized.updatedTo, ['updatedFrom', 'updatedTo'])
  range(normalized.amountMin, normalized.amountMax, ['amountMin', 'amountMax'])
  return normalized
}

/** True when `a` comes before `b` newest first: created later, or at the same time with a greater id. */
export function newerThan (a: SearchCursor, b: SearchCursor): boolean {
  return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)
}

/** True when the payment's facets match every field of the query (the cursor included). */
export function matchesQuery (facets: PaymentFacets, query: NormalizedQuery): boolean {
  if (query.after !== undefined && !newerThan(query.after, facets)) return false
  if (query.statuses !== undefined && !query.statuses.has(facets.status)) return false
  if (query.gatewayName !== undefined && facets.gatewayName !== query.gatewayName) return false
  if (query.currencyCode !== undefined && facets.currencyCode !== query.currencyCode) return false
  if (query.providerId !== undefined && !facets.providerIds.includes(query.providerId)) return false
  if (query.createdFrom !== undefined && facets.createdAt < query.createdFrom) return false
  if (query.createdTo !== undefined && facets.createdAt > query.createdTo) return false
  if (query.updatedFrom !== undefined && facets.updatedAt < query.updatedFrom) return false
  if (query.updatedTo !== undefined && facets.updatedAt > query.updatedTo) return false
  if (query.amountMin !== undefined && facets.totalAmount < query.amountMin) return false
  if (query.amountMax !== undefined && facets.totalAmount > query.amountMax) return false
  if (query.needsAttention !== undefined && query.needsAttention !== isDue(facets, query.now)) return false
  return true
}

/** True when the sweeper would pick the payment at `now` (ISO). */
export function isDue (facets: PaymentFacets, now: string): boolean {
  return facets.attentionAt !== undefined && facets.attentionAt <= now
}

/** A page of at most `first` from matches fetched one more than asked: the extra one says a next page exists. */
export function pageOf (matches: readonly SearchCursor[], first: number): { ids: string[], endCursor?: string } {
  const page = matches.slice(0, first)
  const last = page.at(-1)
  return matches.length > first && last !== undefined
    ? { ids: page.map((facets) => facets.id), endCursor: encodeSearchCursor(last) }
    : { ids: page.map((facets) => facets.id) }
}

/** The storage's PaymentSearch, or PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED: a search never falls back to reading every payment. */
export function paymentSearchOf (storage: unknown, modelName: string): PaymentSearch {
  if (!isPaymentSearch(storage)) throw new PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED(modelName)
  return storage
}

/** Checks deferAttention()'s `until`; answers it as ISO (the form attentionAt is compared in). */
export function checkDefer (until: string): string {
  const at = typeof until === 'string' ? new Date(until) : new Date(NaN)
  if (Number.isNaN(at.getTime())) throw invalid('until', 'must be an ISO 8601 time')
  return at.toISOString()
}

/** Checks attentionDue()'s arguments; answers `now` as ISO. */
export function checkDue (now: Date, limit: number): string {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw invalid('now', 'must be a valid Date')
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) throw invalid('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`)
  return now.toISOString()
}
