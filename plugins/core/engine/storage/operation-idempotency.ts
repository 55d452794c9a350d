import { createHash, randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import type { IdempotencyStore } from './idempotency-store.ts'

export interface IdempotencySettings {
  /** How long a completed operation's answer is replayed. */
  ttlSeconds: number
  /** How long a running operation holds its key; a crashed request's claim expires by itself. */
  lockMs: number
  /** How long a retry waits for the running operation with its key before answering that it is in progress. */
  waitMs: number
}

export const DEFAULT_IDEMPOTENCY: Readonly<IdempotencySettings> = { ttlSeconds: 86_400, lockMs: 30_000, waitMs: 10_000 }

/** The errors each front end answers with (its own codes), by operation name. */
export interface IdempotencyErrors {
  /** The key was used for the same operation with other input. */
  reused: (operation: string) => Error
  /** The operation with this key is still running after waitMs. */
  inProgress: (operation: string) => Error
}

/** JSON with sorted keys: equal inputs give equal text whatever the order of their fields. */
export function canonicalJson (value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
    return `{${entries.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

export function fingerprint (value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url')
}

export interface Replayable<R> {
  result: R
  /** True when the result comes from an earlier request with the same key. */
  replayed: boolean
}

/**
 * Runs operations at most once per idempotency key (the GraphQL Idempotency-Key header, the
 * operator console's form key). The first request claims the key and runs; requests with
 * the same key and input wait for it and get its result; the same key with other input is
 * refused. Only successes are kept: after a failure the key is freed, so a retry runs again.
 */
export class OperationIdempotency {
  readonly store: IdempotencyStore
  readonly settings: IdempotencySettings
  readonly #errors: IdempotencyErrors

  constructor (store: IdempotencyStore, settings: IdempotencySettings, errors: IdempotencyErrors) {
    this.store = store
    this.settings = settings
    this.#errors = errors
  }

  async run<R> (operation: string, key: string | undefined, input: unknown, execute: () => Promise<R>): Promise<Replayable<R>> {
    if (key === undefined) return { result: await execute(), replayed: false }
    const recordKey = `idempotency:${operation}:${createHash('sha256').update(key).digest('base64url')}`
    const record = { fingerprint: fingerprint(input), owner: randomUUID() }
    const deadline = Date.now() + this.settings.waitMs
    for (let attempt = 0; ; attempt++) {
      const existing = await this.store.claim(recordKey, record, this.settings.lockMs)
      if (existing === null) break
      if (existing.fingerprint !== record.fingerprint) throw this.#errors.reused(operation)
      if (existing.result !== undefined) return { result: existing.result as R, replayed: true }
      if (Date.now() >= deadline) throw this.#errors.inProgress(operation)
      await sleep(Math.min(10 * 2 ** attempt, 250))
    }
    let result: R
    try {
      result = await execute()
    } catch (error) {
      await this.store.release(recordKey, record.owner).catch(() => {
        // The claim expires after lockMs anyway; the operation's own error is the one to report.
      })
      throw error
    }
    await this.store.complete(recordKey, { ...record, result }, this.settings.ttlSeconds * 1000)
    return { result, replayed: false }
  }
}
