import { randomUUID } from 'node:crypto'
import type { HumanStatusValue, PaymentAmounts } from '../requests/get-status.ts'
import type { PaymentState, PaymentStateReader } from '../requests/payment-state.ts'
import { affinityTag } from '../random.ts'
import type { StagedWrite } from '../storage/abstract-storage.ts'

export type PaymentEventType =
  'payment.pending' | 'payment.authorized' | 'payment.captured' | 'payment.refunded' | 'payment.reversed' |
  'payment.canceled' | 'payment.failed' | 'payment.expired' | 'payment.suspended' | 'payment.payedout' |
  'payment.status_changed'

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
}

/** Statuses whose arrival is an event of its own name; the others are payment.status_changed. */
const NAMED: ReadonlySet<HumanStatusValue> = new Set(['pending', 'authorized', 'captured', 'refunded', 'canceled', 'failed', 'expired', 'suspended', 'payedout'])

const NONE: PaymentAmounts = { captured: 0, refunded: 0, reversed: 0 }

/**
 * The event one write makes, if it changed what a shop acts on: a reversal or a refund
 * (more money went back than before) is named so even when the status stays, a status
 * change is named after the new status. A write that changed neither makes none.
 */
export function classify (before: PaymentState, after: PaymentState): PaymentEventType | undefined {
  const was = before.amounts ?? NONE
  const now = after.amounts ?? NONE
  if (now.reversed > was.reversed) return 'payment.reversed'
  if (now.refunded > was.refunded) return 'payment.refunded'
  if (before.status === after.status) return undefined
  return NAMED.has(after.status) ? `payment.${after.status}` as PaymentEventType : 'payment.status_changed'
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

/**
 * Compares each staged write's record with the record it was read as, through the
 * gateway's reader, and stages an event per change. Runs inside the commit path, so every
 * writer (routes, webhooks, Sync, GraphQL, executeExclusive) gets events without code of its own.
 */
export function describeWrites (writes: readonly StagedWrite[], gateway: string | undefined, readerOf: ReaderLookup, now = new Date()): OutboxRecord[] {
  const records: OutboxRecord[] = []
  for (const write of writes) {
    if (write.record === null) continue
    // A Payment names its gateway; a gateway's own details record is written by the request's gateway.
    const name = text(write.record.gatewayName) ?? gateway
    if (name === undefined) continue
    const reader = readerOf(name)
    const after = reader?.read(write.record)
    if (reader === undefined || after === undefined) continue
    const before = (write.previous === null || write.previous === undefined ? undefined : reader.read(write.previous)) ?? { status: 'new' }
    const type = classify(before, after)
    if (type === undefined) continue
    const model = write.storage.modelName
    const amounts = after.amounts ?? NONE
    const total = write.record.totalAmount
    const event: PaymentEvent = {
      id: randomUUID(),
      type,
      occurredAt: now.toISOString(),
      gateway: name,
      payment: { model, id: write.id, ...(text(write.record.number) === undefined ? {} : { number: write.record.number as string }) },
      previousStatus: before.status,
      status: after.status,
      amounts: {
        ...(typeof total === 'number' ? { total } : {}),
        ...(text(write.record.currencyCode) === undefined ? {} : { currency: write.record.currencyCode as string }),
        captured: amounts.captured,
        refunded: amounts.refunded,
        reversed: amounts.reversed
      },
      providerIds: { ...after.providerIds }
    }
    records.push(outboxRecord(event, partitionOf(model, write.id)))
  }
  return records
}
