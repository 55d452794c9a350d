import { randomUUID } from 'node:crypto'
import type { StorageBackend } from '../commit/storage-backend.ts'
import { outboxRecord, partitionOf } from '../events/payment-events.ts'
import type { PaywireEvents } from '../events/paywire-events.ts'
import type { ExclusiveExecutor } from '../kernel/exclusive-executor.ts'
import { ArrayObject } from '../model/array-object.ts'
import { Identity } from '../model/identity.ts'
import { Payment } from '../model/payment.ts'
import type { Logger } from '../observability/logger.ts'
import type { ReconcileParts } from '../reconcile/sweeper.ts'
import { Sync } from '../requests/generic.ts'
import { PaymentStateReader } from '../requests/payment-state.ts'
import type { IdempotencyStore } from '../storage/idempotency-store.ts'
import { MemoryIdempotencyStore } from '../storage/memory-idempotency-store.ts'
import type { PaymentSearch } from '../storage/payment-search.ts'
import { MAX_PAGE_SIZE, paymentSearchOf } from '../storage/payment-query.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
import type { GatewayRegistry } from './gateway-registry.ts'

/** The outbox partition whose lease is the sweep's: one instance of a group sweeps at a time. */
export const RECONCILE_LEASE_PARTITION = 'paywire:reconcile'

export interface ReconcileSources {
  gateways: GatewayRegistry
  storages: StorageRegistry
  backend: StorageBackend
  executor: ExclusiveExecutor
  events: PaywireEvents
  logger: Logger
}

function text (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/**
 * The sweeper's parts from the central object's: the Payment storage's due index, Sync through
 * the exclusive executor (the claim, the read under it, the commit with its events, as GraphQL's
 * operations and the payment routes run), the event outbox's lease on a partition of its own,
 * the backend's idempotency records as the memory of raised events, and the outbox for them.
 */
export function reconcileParts (sources: ReconcileSources): ReconcileParts {
  const { gateways, storages, backend, executor, events, logger } = sources
  let remembered: IdempotencyStore | undefined
  const search = (): PaymentSearch => {
    const storage = storages.get(Payment)
    return paymentSearchOf(storage, storage.modelName)
  }
  return {
    logger,
    check: () => { search() },
    due: async (now, limit) => await search().attentionDue(now, Math.min(limit, MAX_PAGE_SIZE)),
    defer: async (candidate, until) => await search().deferAttention(candidate.id, until, candidate),
    canSync: (name) => {
      if (!gateways.hasGateway(name)) return false
      const probe = new Sync(new ArrayObject({}))
      return gateways.getGateway(name).actions.some((action) => action.supports(probe))
    },
    sync: async (candidate) => {
      const storage = storages.get(Payment)
      const identity = new Identity(candidate.id, storage.modelName)
      const result = await executor.execute(gateways.getGateway(candidate.gatewayName), identity, (target) => new Sync(target))
      const payment = result.request.firstModel as Payment
      const record = payment as unknown as Record<string, unknown>
      return {
        changed: result.changed,
        state: gateways.serviceOf(candidate.gatewayName, PaymentStateReader)?.read(record),
        payment: {
          model: storage.modelName,
          id: candidate.id,
          ...(text(payment.number) === undefined ? {} : { number: payment.number }),
          ...(typeof payment.totalAmount === 'number' ? { totalAmount: payment.totalAmount } : {}),
          ...(text(payment.currencyCode) === undefined ? {} : { currencyCode: payment.currencyCode })
        }
      }
    },
    lease: async (ttlMs) => {
      const outbox = events.outbox
      const held = await outbox.lease(RECONCILE_LEASE_PARTITION, ttlMs)
      if (held === null) return null
      return {
        // An outbox without renew() keeps the lease for ttlMs: a sweep longer than that may overlap another (each Sync still claims its payment).
        renew: async (ttl) => await outbox.renew?.(held, ttl) ?? true,
        release: async () => { await outbox.release(held) }
      }
    },
    remember: async (key, ttlMs) => {
      const store = remembered ??= backend.createIdempotencyStore?.('paywire.reconcile') ?? new MemoryIdempotencyStore()
      const owner = randomUUID()
      if (await store.claim(key, { fingerprint: key, owner }, ttlMs) !== null) return null
      return { forget: async () => { await store.release(key, owner) } }
    },
    emit: async (event) => {
      // In the payment's own partition: delivered after the payment events committed before it.
      const record = outboxRecord(event, partitionOf(event.payment.model, event.payment.id))
      await events.outbox.append([record])
      events.wake([record.partition])
    }
  }
}
