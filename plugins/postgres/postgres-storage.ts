import type { Pool } from 'pg'
import {
  AbstractStorage, checkDefer, checkDue, isStorableText, matchesCriteria, normalizeQuery,
  type Criteria, type FindByOptions, type ModelClass, type AttentionRead, type PaymentFacets, type PaymentPage, type PaymentQuery, type PaymentSearch,
  type ReadCache, type StagedWrite, type StorageOptions, type StoredRecord, hideConnection
} from '../core/engine/index.ts'
import { PostgresPaymentSearch } from './postgres-search.ts'
import { recordReadKey } from './postgres-token-storage.ts'
import { SameTickWrites } from './same-tick-writes.ts'
import { guarded, prepared, quoted, type Prepared } from './sql.ts'

export interface PostgresStorageOptions<T extends object> extends StorageOptions<T> {
  /** The schema holding Paywire's tables. Default "paywire". */
  schema?: string
}

/** How many rows findBy() reads per query when some criteria are checked in the process. */
const SCAN_PAGE = 200

interface Row {
  id?: string
  record: Record<string, unknown>
  version: string
}

/** The typed columns of a record: what is queried without reading the JSON. */
export interface RecordColumns {
  number: string | null
  status: string | null
  amount: number | null
  currency: string | null
}

function text (value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

export function columnsOf (record: Record<string, unknown>): RecordColumns {
  const details = record.details !== null && typeof record.details === 'object' ? record.details as Record<string, unknown> : {}
  return {
    number: text(record.number),
    // A model's own status, else the gateway's word for it (offline: details.status; PayPal: details.state).
    status: text(record.status) ?? text(details.status) ?? text(details.state),
    amount: Number.isSafeInteger(record.totalAmount) ? record.totalAmount as number : null,
    currency: text(record.currencyCode)
  }
}

/** The commit function's call (prepared): migration 4's commit, then the writes' facets (migration 5). */
export function commitCall (schema: string): (values: unknown[]) => Prepared {
  return prepared(`SELECT ${quoted(schema)}.paywire_commit_search($1::jsonb) AS answer`)
}

/** One write as the commit function reads it (see migrations.ts): the record's JSON is spliced in as written. */
export function writePayload (modelName: string, write: StagedWrite): string {
  const head = write.record === null
    ? { model: modelName, id: write.id, expected: write.expectedVersion }
    : { model: modelName, id: write.id, expected: write.expectedVersion, ...columnsOf(write.record), ...(write.facets === undefined ? {} : { facets: write.facets }) }
  return `${JSON.stringify(head).slice(0, -1)},"record":${write.json ?? 'null'}}`
}

/** A criterion the database answers exactly: a JSON scalar at a path of object keys. */
function containment (path: string, value: unknown): string | undefined {
  if (!['string', 'number', 'boolean'].includes(typeof value) && value !== null) return undefined
  const parts = path.split('.')
  // Digits may be array positions, which containment does not express.
  if (parts.some((part) => /^-?\d+$/.test(part))) return undefined
  let nested: unknown = value
  for (let index = parts.length - 1; index >= 0; index--) nested = { [parts[index] as string]: nested }
  return JSON.stringify(nested)
}

/** A criterion no stored record can match: a value JSON does not hold, or text no storage keeps. */
function unmatchable (key: string, value: unknown): boolean {
  if (!isStorableText(key)) return true
  if (typeof value === 'string') return !isStorableText(value)
  if (typeof value === 'number') return !Number.isFinite(value)
  return typeof value === 'object' && value !== null ? true : typeof value === 'bigint' || typeof value === 'function' || typeof value === 'symbol'
}

/**
 * Models in one PostgreSQL table shared by every model class (`model` tells them apart):
 * the record as jsonb, its version, and typed columns (number, status, amount, currency,
 * created and updated times) for what is queried. Every write is a compare-and-set, run by
 * the same function as the atomic commit (see migrations.ts). findBy() on `number` uses its
 * index; on any other field, a jsonb containment query (`record @> '{"details":{"id":"PAY-1"}}'`)
 * answered by the GIN index on the record. Payments' facets are kept beside, in the same
 * transaction, for PaymentSearch (postgres-search.ts).
 */
export class PostgresStorage<T extends object> extends AbstractStorage<T> implements PaymentSearch {
  readonly pool: Pool
  readonly schema: string
  readonly #table: string
  readonly #writes: SameTickWrites
  readonly #find: (values: unknown[]) => Prepared
  readonly #search: PostgresPaymentSearch

  constructor (pool: Pool, Model: ModelClass<T>, options: PostgresStorageOptions<T> = {}) {
    super(Model, options)
    this.pool = pool
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'pool')
    this.schema = options.schema ?? 'paywire'
    this.#table = `${quoted(this.schema)}.records`
    this.#writes = SameTickWrites.of(pool, this.schema)
    this.#find = prepared(`SELECT record, version FROM ${this.#table} WHERE model = $1 AND md5(id) = md5($2) AND id = $2`)
    this.#search = new PostgresPaymentSearch(pool, this.schema, this.modelName)
  }

  async searchPayments (query: PaymentQuery): Promise<PaymentPage> {
    return await this.#search.search(normalizeQuery(query))
  }

  async attentionDue (now: Date, limit: number): Promise<PaymentFacets[]> {
    return await this.#search.attentionDue(checkDue(now, limit), limit)
  }

  async deferAttention (id: string, until: string, read: AttentionRead): Promise<boolean> {
    return await this.#search.defer(id, checkDefer(until), read)
  }

  /** Stored only while the record exists (a deleted payment is indexed by no one); a later version's facets are kept. */
  async indexPayment (id: string, version: number, facets: PaymentFacets): Promise<void> {
    await guarded(this.pool.query(`SELECT ${quoted(this.schema)}.paywire_put_facets(model, id, $3, $4::jsonb) FROM ${this.#table}
      WHERE model = $1 AND md5(id) = md5($2) AND id = $2`, [this.modelName, id, version, JSON.stringify(facets)]))
  }

  protected async doWrite (write: StagedWrite): Promise<void> {
    const payload = `{"writes":[${writePayload(this.modelName, write)}],"tokens":[]}`
    // With a token save of the same tick (the prepare), one statement: SameTickWrites.
    if (await this.#writes.commit(payload) !== 'ok') throw this.conflict(write.id)
  }

  protected async doFind (id: string, reads?: ReadCache): Promise<StoredRecord | null> {
    if (!isStorableText(id)) return null
    // Read with the token through this pool (PostgresTokenStorage#claim, #findAndRead): the same row, already read.
    const ahead = reads?.take(this.pool, recordReadKey(this.schema, this.modelName, id))
    if (ahead !== undefined) return ahead.value as StoredRecord | null
    const { rows } = await guarded(this.pool.query<Row>(this.#find([this.modelName, id])))
    return rows[0] === undefined ? null : stored(rows[0])
  }

  protected override async doFindMany (ids: readonly string[]): Promise<Array<StoredRecord | null>> {
    const wanted = ids.filter(isStorableText)
    if (wanted.length === 0) return ids.map(() => null)
    const { rows } = await guarded(this.pool.query<Row>(
      `SELECT id, record, version FROM ${this.#table} WHERE model = $1 AND md5(id) = ANY (SELECT md5(x) FROM unnest($2::text[]) x) AND id = ANY ($2::text[])`,
      [this.modelName, wanted]))
    const byId = new Map(rows.map((row) => [row.id as string, stored(row)]))
    return ids.map((id) => byId.get(id) ?? null)
  }

  protected async doFindBy (criteria: Criteria, options: FindByOptions): Promise<StoredRecord[]> {
    const offset = Math.max(0, Math.floor(options.offset ?? 0))
    const limit = options.limit ?? Infinity
    if (!(limit > 0)) return []
    const conditions = ['model = $1']
    const values: unknown[] = [this.modelName]
    const inProcess: Criteria = {}
    for (const [key, value] of Object.entries(criteria)) {
      if (unmatchable(key, value)) return []
      if (key === 'number' && typeof value === 'string') {
        values.push(value)
        conditions.push(`number = $${values.length}`)
        continue
      }
      const json = containment(key, value)
      if (json === undefined) {
        inProcess[key] = value
        continue
      }
      values.push(json)
      conditions.push(`record @> $${values.length}::jsonb`)
    }
    const where = conditions.join(' AND ')
    if (Object.keys(inProcess).length === 0) {
      values.push(offset)
      const window = `OFFSET $${values.length}${Number.isFinite(limit) ? ` LIMIT ${Math.floor(limit)}` : ''}`
      const { rows } = await guarded(this.pool.query<Row>(`SELECT record, version FROM ${this.#table} WHERE ${where} ORDER BY seq ${window}`, values))
      return rows.map(stored)
    }
    // Criteria the database cannot express exactly (array positions, absent fields) are checked here, page by page.
    const matches: StoredRecord[] = []
    let skipped = 0
    let after = '0'
    values.push(after)
    const page = `SELECT record, version, seq FROM ${this.#table} WHERE ${where} AND seq > $${values.length} ORDER BY seq LIMIT ${SCAN_PAGE}`
    for (;;) {
      values[values.length - 1] = after
      const { rows } = await guarded(this.pool.query<Row & { seq: string }>(page, values))
      for (const row of rows) {
        if (!matchesCriteria(row.record, inProcess) || skipped++ < offset) continue
        matches.push(stored(row))
        if (matches.length >= limit) return matches
      }
      if (rows.length < SCAN_PAGE) return matches
      after = (rows.at(-1) as { seq: string }).seq
    }
  }
}

function stored (row: Row): StoredRecord {
  return { record: row.record, version: Number(row.version) }
}
