import type { Pool } from 'pg'
import { callCommit, guarded, prepared, quoted, unavailable, type CommitVerdict, type Prepared } from './sql.ts'

interface Job<T> {
  values: unknown[]
  resolve: (value: T) => void
  reject: (error: unknown) => void
}

/** Each pool's batchers, one per schema: storages and token storages of one schema share it. */
const batchers = new WeakMap<Pool, Map<string, SameTickWrites>>()

/**
 * A token save and a record's write started in the same tick (the prepare: the payment and
 * its two tokens, started together by Paywire#prepareCapture) go in one statement instead of
 * two. Each keeps its own outcome: when the statement fails with an error PostgreSQL raised
 * (it rolled back whole), the save and the write are sent again on their own, so a write
 * that lost its compare-and-set never takes a token save with it, nor the reverse. An error
 * with no SQLSTATE (the connection went) fails both, as it would have failed each. Anything
 * else (a second save or write in the same tick) goes on its own at once.
 */
export class SameTickWrites {
  readonly #pool: Pool
  readonly #save: (values: unknown[]) => Prepared
  readonly #commit: (values: unknown[]) => Prepared
  readonly #both: (values: unknown[]) => Prepared
  #pendingSave: Job<void> | undefined
  #pendingCommit: Job<CommitVerdict> | undefined
  #scheduled = false

  static of (pool: Pool, schema: string): SameTickWrites {
    let bySchema = batchers.get(pool)
    if (bySchema === undefined) batchers.set(pool, bySchema = new Map())
    let batcher = bySchema.get(schema)
    if (batcher === undefined) bySchema.set(schema, batcher = new SameTickWrites(pool, schema))
    return batcher
  }

  private constructor (pool: Pool, schema: string) {
    this.#pool = pool
    const s = quoted(schema)
    const save = `INSERT INTO ${s}.tokens (hash, model, model_id, token, used, expires_at)
      SELECT r.hash, r.model, r.model_id, r.token, false, CASE WHEN r.ttl > 0 THEN clock_timestamp() + r.ttl * interval '1 millisecond' END
      FROM jsonb_to_recordset($1::jsonb) AS r (hash text, model text, model_id text, token jsonb, ttl bigint)
      ON CONFLICT (md5(hash)) DO UPDATE SET model = EXCLUDED.model, model_id = EXCLUDED.model_id, token = EXCLUDED.token,
        used = false, expires_at = EXCLUDED.expires_at`
    this.#save = prepared(save)
    this.#commit = prepared(`SELECT ${s}.paywire_commit_search($1::jsonb) AS answer`)
    this.#both = prepared(`WITH saved AS (${save}) SELECT ${s}.paywire_commit_search($2::jsonb) AS answer`)
  }

  /** Saves tokens (their rows as PostgresTokenStorage#save builds them, JSON). */
  async save (rows: string): Promise<void> {
    if (this.#pendingSave !== undefined) return await this.#sendSave([rows])
    return await new Promise<void>((resolve, reject) => {
      this.#pendingSave = { values: [rows], resolve, reject }
      this.#schedule()
    })
  }

  /** One call of the commit function (a single write: AbstractStorage#update and #delete). */
  async commit (payload: string): Promise<CommitVerdict> {
    if (this.#pendingCommit !== undefined) return await callCommit(this.#pool, this.#commit, payload)
    return await new Promise<CommitVerdict>((resolve, reject) => {
      this.#pendingCommit = { values: [payload], resolve, reject }
      this.#schedule()
    })
  }

  #schedule (): void {
    if (this.#scheduled) return
    this.#scheduled = true
    queueMicrotask(() => {
      this.#scheduled = false
      const save = this.#pendingSave
      const commit = this.#pendingCommit
      this.#pendingSave = this.#pendingCommit = undefined
      if (save !== undefined && commit !== undefined) this.#sendBoth(save, commit)
      else if (save !== undefined) this.#sendSave(save.values).then(save.resolve, save.reject)
      else if (commit !== undefined) callCommit(this.#pool, this.#commit, commit.values[0] as string).then(commit.resolve, commit.reject)
    })
  }

  async #sendSave (values: unknown[]): Promise<void> {
    await guarded(this.#pool.query(this.#save(values)))
  }

  #sendBoth (save: Job<void>, commit: Job<CommitVerdict>): void {
    this.#pool.query<{ answer: string }>(this.#both([save.values[0], commit.values[0]])).then(({ rows }) => {
      save.resolve()
      commit.resolve(rows[0]?.answer === 'claim_lost' ? 'claim_lost' : 'ok')
    }, (error: unknown) => {
      if (typeof (error as { code?: unknown } | null)?.code !== 'string') {
        // No SQLSTATE: the connection failed, and the statement may or may not have committed.
        const failure = unavailable(error)
        save.reject(failure)
        commit.reject(failure)
        return
      }
      // PostgreSQL raised it: nothing of the statement stayed. Each on its own, for its own outcome.
      this.#sendSave(save.values).then(save.resolve, save.reject)
      callCommit(this.#pool, this.#commit, commit.values[0] as string).then(commit.resolve, commit.reject)
    })
  }
}
