import { hideConnection } from '../core/engine/index.ts'
import type { Pool } from 'pg'
import type { IdempotencyRecord, IdempotencyStore } from '../core/engine/index.ts'
import { guarded, quoted, unavailable } from './sql.ts'

export interface PostgresIdempotencyStoreOptions {
  schema: string
  /** Prefixes every key ("graphql" for the GraphQL plugin's), so several users share the table. */
  namespace: string
  /** How often expired records are deleted, at most (ms; 0: never on its own, call sweep()). Default 60000. */
  sweepIntervalMs?: number
  /** Clock for the sweep interval, for tests. */
  now?: () => number
}

/** Rows deleted per sweep statement, so a sweep never holds many locks at once. */
const SWEEP_BATCH = 1000
/** A claim that found a record gone before it could read it (released or expired that instant) tries again, this often at most. */
const CLAIM_ATTEMPTS = 3

const KEY = 'md5(key) = md5($1) AND key = $1'

/**
 * Idempotency records in the schema's `idempotency` table (migration 3), next to the payments:
 * as shared between instances and as durable as they are. Every record expires (the lock's
 * lifetime while claimed, the ttl once completed), so the table holds at most what the
 * clients sent within one ttl; expired rows are invisible at once and deleted by a sweep that
 * claim() starts at most once per sweepIntervalMs.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  readonly pool: Pool
  readonly namespace: string
  readonly #table: string
  readonly #sweepIntervalMs: number
  readonly #now: () => number
  #lastSweep = 0
  #sweeping: Promise<void> | undefined

  constructor (pool: Pool, options: PostgresIdempotencyStoreOptions) {
    this.pool = pool
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'pool')
    this.namespace = `${options.namespace}:`
    this.#table = `${quoted(options.schema)}.idempotency`
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000
    this.#now = options.now ?? Date.now
  }

  /** One statement takes a free (or expired) key; a key someone holds answers its record. */
  async claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null> {
    this.#maybeSweep()
    const fullKey = this.namespace + key
    for (let attempt = 1; ; attempt++) {
      const taken = await guarded(this.pool.query(`INSERT INTO ${this.#table} AS held (key, owner, record, expires_at)
        VALUES ($1, $2, $3::jsonb, clock_timestamp() + $4 * interval '1 millisecond')
        ON CONFLICT (md5(key)) DO UPDATE SET key = EXCLUDED.key, owner = EXCLUDED.owner, record = EXCLUDED.record, expires_at = EXCLUDED.expires_at
          WHERE held.expires_at <= clock_timestamp()
        RETURNING 1`, [fullKey, record.owner, JSON.stringify(record), Math.ceil(lockMs)]))
      if (taken.rowCount === 1) return null
      const { rows } = await guarded(this.pool.query<{ record: IdempotencyRecord }>(
        `SELECT record FROM ${this.#table} WHERE ${KEY} AND expires_at > clock_timestamp()`, [fullKey]))
      if (rows[0] !== undefined) return rows[0].record
      // Never null without a row: that would tell two requests they both hold the key. A 503 is retried.
      if (attempt === CLAIM_ATTEMPTS) throw unavailable(new Error('the idempotency key changed hands on every attempt'))
    }
  }

  async complete (key: string, record: IdempotencyRecord, ttlMs: number): Promise<void> {
    await guarded(this.pool.query(`UPDATE ${this.#table} SET record = $3::jsonb, expires_at = clock_timestamp() + $4 * interval '1 millisecond'
      WHERE ${KEY} AND owner = $2 AND expires_at > clock_timestamp()`, [this.namespace + key, record.owner, JSON.stringify(record), Math.ceil(ttlMs)]))
  }

  async release (key: string, owner: string): Promise<void> {
    await guarded(this.pool.query(`DELETE FROM ${this.#table} WHERE ${KEY} AND owner = $2`, [this.namespace + key, owner]))
  }

  /** Deletes expired records; answers how many. */
  async sweep (): Promise<number> {
    let deleted = 0
    for (;;) {
      const { rowCount } = await guarded(this.pool.query(`DELETE FROM ${this.#table} WHERE ctid IN
        (SELECT ctid FROM ${this.#table} WHERE expires_at <= clock_timestamp() LIMIT ${SWEEP_BATCH})`))
      deleted += rowCount ?? 0
      if ((rowCount ?? 0) < SWEEP_BATCH) return deleted
    }
  }

  /** Waits for a sweep claim() started, if one runs (before the pool ends). */
  async settled (): Promise<void> {
    await this.#sweeping
  }

  #maybeSweep (): void {
    if (this.#sweepIntervalMs <= 0 || this.#now() - this.#lastSweep < this.#sweepIntervalMs) return
    this.#lastSweep = this.#now()
    // In the background: a failed sweep only leaves expired rows (invisible anyway) for the next one.
    this.#sweeping ??= this.sweep().then(() => {}, () => {}).finally(() => { this.#sweeping = undefined })
  }
}
