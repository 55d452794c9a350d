/**
 * Writes collected while a request runs and sent together when it ends: the storage
 * extension's model saves and the route's token invalidation start in one tick, so a
 * pipelining client (ioredis with auto-pipelining) sends them in one round trip.
 *
 * Pass one to `Gateway.execute(request, { writes })`; the caller must then `flush()` it
 * before it answers, on success and on failure alike.
 */
export class WriteBatch {
  #writes: Array<() => Promise<unknown>> = []

  get size (): number {
    return this.#writes.length
  }

  add (write: () => Promise<unknown>): void {
    this.#writes.push(write)
  }

  /**
   * Starts every write at once and waits for all of them, so none is left running when
   * one fails; rejects with the first failure. The batch is empty afterwards.
   */
  async flush (): Promise<void> {
    const writes = this.#writes
    if (writes.length === 0) return
    this.#writes = []
    const results = await Promise.allSettled(writes.map(async (write) => await write()))
    const failed = results.find((result) => result.status === 'rejected')
    if (failed !== undefined) throw failed.reason
  }
}
