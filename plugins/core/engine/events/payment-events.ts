import { randomUUID } from 'node:crypto'
import type { HumanStatusValue, PaymentAmounts } from '../requests/get-status.ts'
import type { PaymentDispute, PaymentState, PaymentStateReader } from '../requests/payment-state.ts'
import { affinityTag } from '../random.ts'
import type { StagedWrite } from '../storage/abstract-storage.ts'
import type { AttentionOptions } from '../reconcile/attention.ts'
import type { PaymentFacets } from '../storage/payment-search.ts'
import { paymentFacets } from '../storage/payment-query.ts'

export type PaymentEventType =
  'payment.pending' | 'payment.authorized' | 'payment.captured' | 'payment.refunded' | 'payment.reversed' |
  'payment.canceled' | 'payment.failed' | 'payment.expired' | 'payment.suspended' | 'payment.payedout' |
  'payment.disputed' | 'payment.dispute_resolved' | 'payment.status_changed'

/** A committed change of a payment: its status moved, or money moved (a refund, a reversal). */
export interface PaymentEvent {
  /** Unique per event, the same on every delivery: handlers deduplicate with it. */
  id: string
  type: PaymentEventType
  /** When the change was committed (ISO 8601). */
  occurredAt: string
  gateway: string
  payment: { model: string, id: string, number?: string }
  previousStatus: HumanStatusValue
  status: HumanStatusValue
  /** Minor units; total and currency as the payment states them, when it does. */
  amounts: { total?: number, currency?: string, captured: number, refunded: number, reversed: number }
  providerIds: Record<string, string>
  /** The dispute a payment.disputed or payment.dispute_resolved event is about. */
  dispute?: PaymentDispute
}

/** Statuses whose arrival is an event of its own name; the others are payment.status_changed. */
const NAMED: ReadonlySet<HumanStatusValue> = new Set(['pending', 'authorized', 'captured', 'refunded', 'canceled', 'failed', 'expired', 'suspended', 'payedout'])

const NONE: PaymentAmounts = { captured: 0, refunded: 0, reversed: 0 }

/** Disputes that opened (new, or open again) and that closed (open before, won or lost now) between two readings, as events. */
function disputeEvents (before: PaymentState, after: readonly PaymentDispute[]): Array<{ type: PaymentEventType, dispute?: PaymentDispute }> {
  const was = new Map((before.disputes ?? []).map((dispute) => [dispute.id, dispute.state]))
  const opened: Array<{ type: PaymentEventType, dispute?: PaymentDispute }> = []
  const closed: Array<{ type: PaymentEventType, dispute?: PaymentDispute }> = []
  for (const dispute of after) {
    const previous = was.get(dispute.id)
    if (dispute.state === 'open' && previous !== 'open') opened.push({ type: 'payment.disputed', dispute })
    else if (dispute.state !== 'open' && previous === 'open') closed.push({ type: 'payment.dispute_resolved', dispute })
  }
  // Pushed, not spread: the array's map then does not depend on the caller's tier (see redis-commit.ts).
  for (const event of closed) opened.push(event)
  return opened
}

/**
 * The events one write makes, if it changed what a shop acts on: a dispute opened or closed
 * (one event per dispute), more money taken back (a reversal, which wins over a refund in the
 * same write) or refunded, named so even when the status stays; else a status change, named
 * after the new status (a dispute's own status change, to suspended and back, is its event).
 * A write that changed none of them makes none.
 */
export function eventsOf (before: PaymentState, after: PaymentState): Array<{ type: PaymentEventType, dispute?: PaymentDispute }> {
  // Only the disputes the payment has now can have opened or closed: most writes have none.
  const events: Array<{ type: PaymentEventType, dispute?: PaymentDispute }> = after.disputes === undefined || after.disputes.length === 0 ? [] : disputeEvents(before, after.disputes)
  const was = before.amounts ?? NONE
  const now = after.amounts ?? NONE
  if (now.reversed > was.reversed) events.push({ type: 'payment.reversed' })
  else if (now.refunded > was.refunded) events.push({ type: 'payment.refunded' })
  if (events.length > 0 || before.status === after.status) return events
  return [{ type: NAMED.has(after.status) ? `payment.${after.status}` as PaymentEventType : 'payment.status_changed' }]
}

/** The first event one write makes (see eventsOf()), or undefined when it makes none. */
export function classify (before: PaymentState, after: PaymentState): PaymentEventType | undefined {
  return eventsOf(before, after)[0]?.type
}

/** The partition an event is kept and delivered in: one per payment, in commit order (its hash tag on Redis). */
export function partitionOf (modelName: string, id: string): string {
  return affinityTag(modelName, id)
}

/** An event staged for the outbox, written in the same commit as the change it describes. */
export interface OutboxRecord {
  id: string
  partition: string
  type: string
  /** The event as JSON. */
  json: string
}

export function outboxRecord (event: { id: string, type: string }, partition: string): OutboxRecord {
  return { id: event.id, partition, type: event.type, json: JSON.stringify(event) }
}

/** Finds the reader of a gateway by name (undefined: the gateway reads no states, and its writes make no events). */
export type ReaderLookup = (gateway: string) => PaymentStateReader | undefined

function text (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

export interface DescribeOptions {
  /** The sweeper's thresholds the facets' attentionAt is computed with. */
  attention?: AttentionOptions
  /** Filled with the facets of each write of a Payment (a record naming its gateway), from the same reading as its events. */
  facets?: Map<StagedWrite, PaymentFacets>
}

/**
 * The facets of one write of a Payment, for a write made outside a commit (storage.update()):
 * undefined for a delete or a record naming no gateway. A payment its gateway cannot read
 * (no reader, a gateway no longer registered or failing to build) is `unknown`, still found
 * by every other facet.
 */
export function facetsOfWrite (write: StagedWrite, readerOf: ReaderLookup, attention?: AttentionOptions): PaymentFacets | undefined {
  const { record } = write
  const name = record === null ? undefined : text(record.gatewayName)
  if (record === null || name === undefined) return undefined
  let state: PaymentState | undefined
  try {
    state = readerOf(name)?.read(record)
  } catch {
    // A gateway that cannot be built must not make its payments unsavable: its reading is unknown.
  }
  return paymentFacets(write.id, record, name, state ?? UNKNOWN, attention)
}

const UNKNOWN: PaymentState = { status: 'unknown' }
const NEW: PaymentState = { status: 'new' }

/**
 * Compares each staged write's record with the record it was read as, through the
 * gateway's reader, and stages the events each change makes (eventsOf). Runs inside the commit path, so every
 * writer (routes, webhooks, Sync, GraphQL, executeExclusive) gets events without code of its own.
 * With `options.facets`, the same reading of each Payment also gives its facets (see PaymentFacets).
 */
export function describeWrites (writes: readonly StagedWrite[], gateway: string | undefined, readerOf: ReaderLookup, now = new Date(),
  options: DescribeOptions = {}): OutboxRecord[] {
  const records: OutboxRecord[] = []
  // Every event of one commit happened at its time: written once (toISOString() is ~0.4 µs).
  let occurredAt: string | undefined
  for (const write of writes) {
    const record = write.record
    if (record === null) continue
    // A Payment names its gateway; a gateway's own details record is written by the request's gateway.
    const own = text(record.gatewayName)
    const name = own ?? gateway
    if (name === undefined) continue
    const reader = readerOf(name)
    const after = reader?.read(record)
    if (own !== undefined && options.facets !== undefined) {
      const facets = paymentFacets(write.id, record, own, after ?? UNKNOWN, options.attention)
      if (facets !== undefined) options.facets.set(write, facets)
    }
    if (reader === undefined || after === undefined) continue
    const before = (write.previous === null || write.previous === undefined ? undefined : reader.read(write.previous)) ?? NEW
    const changes = eventsOf(before, after)
    if (changes.length === 0) continue
    occurredAt ??= now.toISOString()
    const model = write.storage.modelName
    const partition = partitionOf(model, write.id)
    // The parts every event of this write shares, built in the events' key order: they are only
    // serialized (outboxRecord), never handed out, so the events share them rather than copies.
    const payment: PaymentEvent['payment'] = { model, id: write.id }
    const number = text(record.number)
    if (number !== undefined) payment.number = number
    const amounts = {} as PaymentEvent['amounts']
    if (typeof record.totalAmount === 'number') amounts.total = record.totalAmount
    const currency = text(record.currencyCode)
    if (currency !== undefined) amounts.currency = currency
    const moved = after.amounts ?? NONE
    amounts.captured = moved.captured
    amounts.refunded = moved.refunded
    amounts.reversed = moved.reversed
    const providerIds = after.providerIds ?? {}
    for (const { type, dispute } of changes) {
      const event: PaymentEvent = {
        id: randomUUID(), type, occurredAt, gateway: name, payment, previousStatus: before.status, status: after.status, amounts, providerIds
      }
      if (dispute !== undefined) event.dispute = dispute
      records.push(outboxRecord(event, partition))
    }
  }
  return records
}
