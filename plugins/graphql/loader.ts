import type { Payment, Storage } from '../core/engine/index.ts'

interface Pending {
  id: string
  resolve: (payment: Payment | null) => void
  reject: (error: unknown) => void
}

export const MAX_BATCH = 100

/**
 * Loads payments by id for one GraphQL request, DataLoader-style: every id asked for in
 * the same tick goes to storage.findMany() together (one round trip on Redis), and each
 * payment is fetched once per request. Lists read with findBy() prime it.
 *
 * Mercurius loaders are not used: they batch per field and only work through HTTP
 * (reply.graphql), while payments are asked for by several fields and app.graphql() too.
 */
export class PaymentLoader {
  readonly #storage: Storage<Payment>
  readonly #cache = new Map<string, Promise<Payment | null>>()
  #queue: Pending[] = []

  constructor (storage: Storage<Payment>) {
    this.#storage = storage
  }

  load (id: string): Promise<Payment | null> {
    const cached = this.#cache.get(id)
    if (cached !== undefined) return cached
    const promise = new Promise<Payment | null>((resolve, reject) => {
      this.#queue.push({ id, resolve, reject })
    })
    this.#cache.set(id, promise)
    // Like DataLoader: after the current promise jobs, so resolvers started together batch together.
    if (this.#queue.length === 1) Promise.resolve().then(() => process.nextTick(() => this.#dispatch()))
    return promise
  }

  async loadMany (ids: readonly string[]): Promise<Array<Payment | null>> {
    return await Promise.all(ids.map((id) => this.load(id)))
  }

  /** Remembers a payment read or written otherwise, so later loads reuse it. */
  prime (payment: Payment): Payment {
    if (payment.id !== undefined) this.#cache.set(payment.id, Promise.resolve(payment))
    return payment
  }

  /** Forgets a payment, so the next load reads the storage again (mutations start from fresh data). */
  clear (id: string): this {
    this.#cache.delete(id)
    return this
  }

  #dispatch (): void {
    const queue = this.#queue
    this.#queue = []
    for (let start = 0; start < queue.length; start += MAX_BATCH) {
      const batch = queue.slice(start, start + MAX_BATCH)
      this.#storage.findMany(batch.map((pending) => pending.id)).then((payments) => {
        batch.forEach((pending, index) => pending.resolve(payments[index] ?? null))
      }, (error: unknown) => {
        for (const pending of batch) {
          this.#cache.delete(pending.id)
          pending.reject(error)
        }
      })
    }
  }
}
