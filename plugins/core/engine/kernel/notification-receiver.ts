import { randomUUID } from 'node:crypto'
import type { PaywireEvents } from '../events/paywire-events.ts'
import type { Logger } from '../observability/logger.ts'
import { Notify } from '../requests/generic.ts'
import { LocateNotification, type PaymentLookup, type ProviderNotification } from '../requests/notification.ts'
import type { Reply } from '../requests/replies.ts'
import type { IdempotencyStore } from '../storage/idempotency-store.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
import type { ExclusiveExecutor } from './exclusive-executor.ts'
import type { Gateway } from './gateway.ts'

/**
 * How long a notification reported as unmatched is remembered, so its redeliveries are not
 * reported again: longer than providers keep redelivering (PayPal: 3 days; Stripe: 3 days).
 */
export const UNMATCHED_MEMORY_MS = 7 * 24 * 60 * 60 * 1000

export interface NotificationReceiverParts {
  storages: StorageRegistry
  executor: ExclusiveExecutor
  events: PaywireEvents
  logger: Logger
  /** Where the provider events already reported as money.unmatched are remembered (the backend's, when it has one); made on first use. */
  reported: () => IdempotencyStore
}

/**
 * What the gateway-wide notify route does with a provider's notification (a webhook),
 * framework-free: the gateway verifies it and says where its payment is (LocateNotification);
 * the payment is found, and its Notify runs as the payment's only writer (ExclusiveExecutor),
 * like every other token route. A notification about money no stored payment owns is
 * reported once per provider event: logged at error and emitted as `money.unmatched`.
 */
export class NotificationReceiver {
  readonly #parts: NotificationReceiverParts

  constructor (parts: NotificationReceiverParts) {
    this.#parts = parts
  }

  /** The gateway's reply (a refusal), or undefined once the notification is taken (the route answers 204). */
  async receive (gateway: Gateway, gatewayName: string): Promise<Reply | undefined> {
    const locate = new LocateNotification()
    const refusal = await gateway.execute(locate, { catchReply: true })
    if (refusal !== undefined) return refusal
    const { notification } = locate
    if (notification === undefined) return undefined
    // An event that names nothing (a webhook about the account) concerns no payment; one that names money it cannot place is unmatched.
    if (locate.lookups.length === 0 && Object.keys(notification.resourceIds).length === 0) {
      this.#parts.logger.info(this.#where(gatewayName, notification), `paywire: a ${notification.provider} notification about no payment: acknowledged`)
      return undefined
    }
    const payment = await this.#find(locate.lookups)
    if (payment === undefined) {
      await this.#reportUnmatched(gatewayName, notification)
      return undefined
    }
    // A redelivery of a notification the payment took costs no claim and no provider call.
    if (locate.handled?.(payment) === true) return undefined
    const { reply } = await this.#parts.executor.execute(gateway, payment, (target) => new Notify(target, notification))
    return reply
  }

  async #find (lookups: readonly PaymentLookup[]): Promise<object | undefined> {
    const { storages } = this.#parts
    for (const lookup of lookups) {
      if (!storages.has(lookup.model)) continue
      const storage = storages.get(lookup.model)
      const found = 'id' in lookup ? await storage.find(lookup.id) : (await storage.findBy(lookup.criteria, { limit: 1 }))[0]
      if (found !== null && found !== undefined && (lookup.accept?.(found) ?? true)) return found
    }
    return undefined
  }

  #where (gatewayName: string, notification: ProviderNotification): object {
    return { paywire: { gateway: gatewayName, provider: notification.provider, event: notification.eventId, type: notification.eventType, ...notification.resourceIds } }
  }

  async #reportUnmatched (gatewayName: string, notification: ProviderNotification): Promise<void> {
    const { logger, events } = this.#parts
    const reported = this.#parts.reported()
    const where = this.#where(gatewayName, notification)
    const key = `${gatewayName}:${notification.eventId}`
    const owner = randomUUID()
    if (await reported.claim(key, { fingerprint: key, owner }, UNMATCHED_MEMORY_MS) !== null) {
      logger.info(where, 'paywire: a redelivered notification about a payment Paywire does not know: already reported as money.unmatched')
      return
    }
    logger.error(where, `paywire: ${notification.provider} notified money about a payment Paywire does not know: acknowledged, emitted as money.unmatched`)
    try {
      await events.emit('money.unmatched', {
        gateway: gatewayName,
        provider: notification.provider,
        eventId: notification.eventId,
        ...(notification.eventType === undefined ? {} : { eventType: notification.eventType }),
        resourceIds: notification.resourceIds,
        ...(notification.amount === undefined ? {} : { amount: notification.amount })
      })
    } catch (error) {
      // Not reported after all: the provider's next delivery tries again.
      await reported.release(key, owner)
      throw error
    }
  }
}
