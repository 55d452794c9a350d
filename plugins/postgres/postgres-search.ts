import type { Pool } from 'pg'
import { isStorableText, pageOf, type AttentionRead, type NormalizedQuery, type PaymentFacets, type PaymentPage } from '../core/engine/index.ts'
import { guarded, quoted } from './sql.ts'

/*
 * PaymentSearch on PostgreSQL: the payment_facets table of migration 5, written by the
 * commit function in the record's transaction. A search is one query, newest first by the
 * keyset (created_at, id) below the cursor, LIMIT one more than the page: the filter's
 * btree (or the GIN index of provider ids) gives the rows in order, never OFFSET.
 */
export class PostgresPaymentSearch {
  readonly #pool: Pool
  readonly #table: string
  readonly #model: string

  constructor (pool: Pool, schema: string, modelName: string) {
    this.#pool = pool
    this.#table = `${quoted(schema)}.payment_facets`
    this.#model = modelName
  }

  async search (query: NormalizedQuery): Promise<PaymentPage> {
    const values: unknown[] = [this.#model]
    const where = ['model = $1']
    const add = (condition: (at: string) => string, value: unknown) => {
      values.push(value)
      where.push(condition(`$${values.length}`))
    }
    // Text PostgreSQL cannot hold (a NUL) is in no row.
    for (const value of [query.gatewayName, query.currencyCode, query.providerId, ...query.statuses ?? []]) {
      if (value !== undefined && !isStorableText(value)) return { ids: [] }
    }
    if (query.statuses !== undefined) add((at) => `status = ANY (${at}::text[])`, [...query.statuses])
    if (query.gatewayName !== undefined) add((at) => `gateway = ${at}`, query.gatewayName)
    if (query.currencyCode !== undefined) add((at) => `currency = ${at}`, query.currencyCode)
    if (query.providerId !== undefined) add((at) => `provider_ids @> ARRAY[${at}::text]`, query.providerId)
    if (query.createdFrom !== undefined) add((at) => `created_at >= ${at}::timestamptz`, query.createdFrom)
    if (query.createdTo !== undefined) add((at) => `created_at <= ${at}::timestamptz`, query.createdTo)
    if (query.updatedFrom !== undefined) add((at) => `updated_at >= ${at}::timestamptz`, query.updatedFrom)
    if (query.updatedTo !== undefined) add((at) => `updated_at <= ${at}::timestamptz`, query.updatedTo)
    if (query.amountMin !== undefined) add((at) => `total_amount >= ${at}`, query.amountMin)
    if (query.amountMax !== undefined) add((at) => `total_amount <= ${at}`, query.amountMax)
    if (query.needsAttention === true) add((at) => `attention_at <= ${at}::timestamptz`, query.now)
    if (query.needsAttention === false) add((at) => `(attention_at IS NULL OR attention_at > ${at}::timestamptz)`, query.now)
    if (query.after !== undefined) {
      values.push(query.after.createdAt, query.after.id)
      where.push(`(created_at, id) < ($${values.length - 1}::timestamptz, $${values.length})`)
    }
    values.push(query.first + 1)
    const { rows } = await guarded(this.#pool.query<{ facets: PaymentFacets }>(
      `SELECT facets FROM ${this.#table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`, values))
    return pageOf(rows.map((row) => row.facets), query.first)
  }

  /**
   * PaymentSearch.deferAttention, `until` checked: one UPDATE of the row whose facets still say
   * what was read (compared as the stored text) and that needs attention; attention_at and the
   * facets' attentionAt move together, the count of deferrals goes up by one.
   */
  async defer (id: string, until: string, read: AttentionRead): Promise<boolean> {
    // An id PostgreSQL cannot hold (a NUL) is in no row; the times read came from a row.
    if (!isStorableText(id)) return false
    const { rowCount } = await guarded(this.#pool.query(
      `UPDATE ${this.#table} SET attention_at = $3::text::timestamptz,
        facets = facets || jsonb_build_object('attentionAt', $3::text, 'attentionDeferrals', coalesce((facets->>'attentionDeferrals')::int, 0) + 1)
      WHERE model = $1 AND md5(id) = md5($2) AND id = $2 AND attention_at IS NOT NULL AND facets->>'attentionAt' = $4 AND facets->>'updatedAt' = $5`,
      [this.#model, id, until, read.attentionAt ?? null, read.updatedAt]))
    return rowCount === 1
  }

  async attentionDue (now: string, limit: number): Promise<PaymentFacets[]> {
    const { rows } = await guarded(this.#pool.query<{ facets: PaymentFacets }>(
      `SELECT facets FROM ${this.#table} WHERE model = $1 AND attention_at <= $2::timestamptz ORDER BY attention_at, id LIMIT $3`,
      [this.#model, now, limit]))
    return rows.map((row) => row.facets)
  }
}
