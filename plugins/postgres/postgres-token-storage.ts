import type { Pool } from 'pg'
import {
  ReadCache, Token, TokenStorage, assertTokenTtls, errorCodes, isStorableText, newClaimId, tokenTtlSeconds, tokenUsedError,
  type Claim, type TokenClaim, type TokenJSON, type TokenRead, type TokenTtls, type UsedToken, hideConnection
} from '../core/engine/index.ts'
import { SameTickWrites } from './same-tick-writes.ts'
import { guarded, prepared, quoted, type Prepared } from './sql.ts'

export interface PostgresTokenStorageOptions {
  /** The schema holding Paywire's tables. Default "paywire". */
  schema?: string
  /** Lifetimes by token kind, in seconds; 0 keeps a token until it is used. */
  ttl?: TokenTtls
  /** How often expired tokens and claims are deleted, at most (ms; 0: never on its own, call sweep()). Default 60000. */
  sweepIntervalMs?: number
  /** Clock for the sweep interval, for tests. */
  now?: () => number
}

export const DEFAULT_SWEEP_INTERVAL_MS = 60_000

/** Rows deleted per sweep statement, so a sweep never holds many locks at once. */
const SWEEP_BATCH = 1000

const LIVE = '(expires_at IS NULL OR expires_at > clock_timestamp())'
const HASH = 'md5(hash) = md5($1) AND hash = $1'
const KEY = 'md5(key) = md5($1) AND key = $1'

/**
 * Tokens and claims in PostgreSQL, for a shop with only PostgreSQL. Times are the
 * database's clock, so instances with skewed clocks agree on what expired. Expired tokens
 * are invisible at once and deleted by a sweep that save() starts at most once per
 * sweepIntervalMs. A claim is a row taken with INSERT … ON CONFLICT that only replaces an
 * expired one, so one request at a time holds it whichever instance asks.
 */
export class PostgresTokenStorage extends TokenStorage {
  readonly pool: Pool
  readonly schema: string
  readonly #ttl: TokenTtls
  readonly #tokens: string
  readonly #claims: string
  readonly #writes: SameTickWrites
  readonly #find: (values: unknown[]) => Prepared
  readonly #claim: (values: unknown[]) => Prepared
  readonly #findAndRead: (values: unknown[]) => Prepared
  readonly #records: string
  readonly #sweepIntervalMs: number
  readonly #now: () => number
  #lastSweep: number
  #sweeping: Promise<void> | undefined

  constructor (pool: Pool, options: PostgresTokenStorageOptions = {}) {
    super()
    this.pool = pool
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'pool')
    this.schema = options.schema ?? 'paywire'
    this.#ttl = assertTokenTtls(options.ttl ?? {}, 'ttl')
    this.#tokens = `${quoted(this.schema)}.tokens`
    this.#claims = `${quoted(this.schema)}.claims`
    // The buyer's path: prepared once per connection.
    this.#writes = SameTickWrites.of(pool, this.schema)
    this.#find = prepared(`SELECT token FROM ${this.#tokens} WHERE ${HASH} AND NOT used AND ${LIVE}`)
    this.#records = `${quoted(this.schema)}.records`
    // The done page: the token and its model's record from one snapshot.
    this.#findAndRead = prepared(`SELECT t.token, t.model IS NOT NULL AS read, rec.record, rec.version FROM ${this.#tokens} t
      LEFT JOIN ${this.#records} rec ON rec.model = t.model AND md5(rec.id) = md5(t.model_id) AND rec.id = t.model_id
      WHERE md5(t.hash) = md5($1) AND t.hash = $1 AND NOT t.used AND (t.expires_at IS NULL OR t.expires_at > clock_timestamp())`)
    this.#claim = prepared(`
      WITH t AS (
        SELECT token, used, model, model_id, CASE WHEN model IS NULL THEN 'token:' || hash ELSE model || ':' || model_id END AS key
        FROM ${this.#tokens} WHERE ${HASH} AND ${LIVE}
        FOR NO KEY UPDATE
      ), c AS (
        INSERT INTO ${this.#claims} (key, id, expires_at)
        SELECT key, $2, clock_timestamp() + $3::bigint * interval '1 millisecond' FROM t WHERE NOT used
        ON CONFLICT (md5(key)) DO UPDATE SET key = EXCLUDED.key, id = EXCLUDED.id, expires_at = EXCLUDED.expires_at
          WHERE ${this.#claims}.expires_at <= clock_timestamp()
        RETURNING id
      ), r AS (
        SELECT rec.record, rec.version FROM ${this.#records} rec, t
        WHERE EXISTS (SELECT 1 FROM c) AND rec.model = t.model AND md5(rec.id) = md5(t.model_id) AND rec.id = t.model_id
        FOR SHARE OF rec
      )
      SELECT t.token, t.used, t.key, EXISTS (SELECT 1 FROM c) AS claimed, t.model IS NOT NULL AS read,
        (SELECT record FROM r) AS record, (SELECT version FROM r) AS version FROM t`)
    this.#sweepIntervalMs = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS
    this.#now = options.now ?? Date.now
    this.#lastSweep = this.#now()
  }

  /** How long a used token is remembered: as long as the done page it leads to (ms, 0: forever). */
  get usedTokenTtlMs (): number {
    return ttlMs(tokenTtlSeconds('after', this.#ttl))
  }

  async save (tokens: readonly Token[]): Promise<void> {
    if (tokens.length === 0) return
    const rows = tokens.map((token) => ({
      hash: token.hash,
      model: token.details?.modelName ?? null,
      model_id: token.details?.id ?? null,
      token: token.toJSON(),
      ttl: ttlMs(tokenTtlSeconds(token.kind, this.#ttl))
    }))
    // A hash saved again replaces the token, as a Redis SET does; with a record's write of the same tick, one statement (SameTickWrites).
    await this.#writes.save(JSON.stringify(rows))
    if (this.#sweepIntervalMs > 0 && this.#now() - this.#lastSweep >= this.#sweepIntervalMs) {
      this.#lastSweep = this.#now()
      // In the background: a failed sweep only leaves expired rows (invisible anyway) for the next one.
      this.#sweeping ??= this.sweep().then(() => {}, () => {}).finally(() => { this.#sweeping = undefined })
    }
  }

  async find (hash: string): Promise<Token | null> {
    if (!isStorableText(hash)) return null
    const { rows } = await guarded(this.pool.query<{ token: TokenJSON }>(this.#find([hash])))
    return rows[0] === undefined ? null : Token.fromJSON(rows[0].token)
  }

  /** find(), and the token's model's record from the same snapshot (one statement): a done page reads both. */
  override async findAndRead (hash: string): Promise<TokenRead> {
    if (!isStorableText(hash)) return { token: null }
    const { rows } = await guarded(this.pool.query<RecordRow & { token: TokenJSON }>(this.#findAndRead([hash])))
    if (rows[0] === undefined) return { token: null }
    const token = Token.fromJSON(rows[0].token)
    return { token, ...this.#reads(token, rows[0]) }
  }

  async findUsed (hash: string): Promise<UsedToken | null> {
    if (!isStorableText(hash)) return null
    const { rows } = await guarded(this.pool.query<{ token: TokenJSON }>(`SELECT token FROM ${this.#tokens} WHERE ${HASH} AND used AND ${LIVE}`, [hash]))
    return rows[0] === undefined ? null : { afterUrl: rows[0].token.afterUrl }
  }

  async invalidate (hash: string): Promise<boolean> {
    if (!isStorableText(hash)) return false
    const { rowCount } = await guarded(this.pool.query(`UPDATE ${this.#tokens} SET used = true,
      expires_at = CASE WHEN $2::bigint > 0 THEN clock_timestamp() + $2::bigint * interval '1 millisecond' END
      WHERE ${HASH} AND NOT used AND ${LIVE}`, [hash, this.usedTokenTtlMs]))
    return rowCount === 1
  }

  /**
   * find + claim in one statement: the token, and the claim on its model when nobody holds it.
   * The token row is locked (FOR NO KEY UPDATE) before the claim is taken: a commit using the
   * token up holds that row until it ends, so this statement waits for it and, under READ
   * COMMITTED, reads the row as that commit left it (used) instead of its starting snapshot,
   * where the token was still live and the claim the commit just released looked free. Not FOR
   * SHARE: share locks taken by a stream of polling requests never all let go at once, and the
   * commit waiting for the row starved past the routes' busy wait. Commits lock token rows
   * before the claim (migration 4), the same order, so the two never deadlock.
   */
  override async claim (hash: string, ttlMs: number): Promise<TokenClaim | null> {
    if (!isStorableText(hash)) return null
    const id = newClaimId()
    const { rows } = await guarded(this.pool.query<RecordRow & { token: TokenJSON, used: boolean, key: string, claimed: boolean }>(this.#claim([hash, id, ttlMs])))
    const row = rows[0]
    if (row === undefined) return null
    if (row.used) throw tokenUsedError({ afterUrl: row.token.afterUrl }, row.token.targetUrl)
    if (!row.claimed) throw new errorCodes.PAYWIRE_ERR_PAYMENT_BUSY()
    const token = Token.fromJSON(row.token)
    // The key computed in SQL is claimKey()'s; a subclass with other keys claims its own way.
    const expected = this.tokenClaimKey(token)
    if (expected === row.key) return { token, claim: { key: row.key, id }, ...this.#reads(token, row) }
    await this.releaseClaim({ key: row.key, id })
    return await this.readUnderClaim(hash, await this.claimByKey(expected, ttlMs))
  }

  async acquireClaim (key: string, ttlMs: number): Promise<string | null> {
    const id = newClaimId()
    const { rowCount } = await guarded(this.pool.query(`INSERT INTO ${this.#claims} (key, id, expires_at)
      VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond')
      ON CONFLICT (md5(key)) DO UPDATE SET key = EXCLUDED.key, id = EXCLUDED.id, expires_at = EXCLUDED.expires_at
        WHERE ${this.#claims}.expires_at <= clock_timestamp()`, [key, id, ttlMs]))
    return rowCount === 1 ? id : null
  }

  async renewClaim (claim: Claim, ttlMs: number): Promise<boolean> {
    const { rowCount } = await guarded(this.pool.query(`UPDATE ${this.#claims}
      SET expires_at = clock_timestamp() + $3::bigint * interval '1 millisecond'
      WHERE ${KEY} AND id = $2 AND expires_at > clock_timestamp()`, [claim.key, claim.id, ttlMs]))
    return rowCount === 1
  }

  async releaseClaim (claim: Claim): Promise<void> {
    await guarded(this.pool.query(`DELETE FROM ${this.#claims} WHERE ${KEY} AND id = $2`, [claim.key, claim.id]))
  }

  /** Deletes expired tokens (used ones included, once their tombstone expired) and expired claims; answers how many. */
  async sweep (): Promise<number> {
    let deleted = 0
    for (const table of [this.#tokens, this.#claims]) {
      for (;;) {
        const { rowCount } = await guarded(this.pool.query(`DELETE FROM ${table} WHERE ctid IN
          (SELECT ctid FROM ${table} WHERE expires_at <= clock_timestamp() LIMIT ${SWEEP_BATCH})`))
        deleted += rowCount ?? 0
        if ((rowCount ?? 0) < SWEEP_BATCH) break
      }
    }
    return deleted
  }

  /** The record read with the token, as the ReadCache entry its storage (same pool, schema and model) takes. */
  #reads (token: Token, row: RecordRow): { reads?: ReadCache } {
    if (!row.read || token.details === null) return {}
    const stored = row.record === null ? null : { record: row.record, version: Number(row.version) }
    return { reads: new ReadCache().put(this.pool, recordReadKey(this.schema, token.details.modelName, token.details.id), stored) }
  }

  /** Waits for a sweep save() started, if one runs (close() calls it before the pool ends). */
  async settled (): Promise<void> {
    await this.#sweeping
  }
}

interface RecordRow {
  read: boolean
  record: Record<string, unknown> | null
  version: string | null
}

/** A record's key in a ReadCache, for the pool it was read through (see PostgresStorage#doFind). */
export function recordReadKey (schema: string, model: string, id: string): string {
  return JSON.stringify([schema, model, id])
}

/** Seconds → milliseconds, so lifetimes below a second (tests, demos) work; 0 stays 0. */
function ttlMs (seconds: number): number {
  return seconds > 0 ? Math.max(1, Math.round(seconds * 1000)) : 0
}
