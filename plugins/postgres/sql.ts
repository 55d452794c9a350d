import { createHash } from 'node:crypto'
import { errorCodes } from '../core/engine/index.ts'

/** A schema name Paywire accepts: a plain identifier, so it is the same quoted or not. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** A schema name as an SQL identifier (validated by the plugin; quoted anyway). */
export function quoted (schema: string): string {
  return `"${schema.replace(/"/g, '""')}"`
}

/** The connection string as it may appear in logs and errors: without its password. */
export function redactPostgresUrl (url: string): string {
  return url
    .replace(/^((?:[a-z][a-z\d+.-]*:)?\/\/|)([^:@/?#]*):[^/?#]*@/i, '$1$2:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
}

/**
 * A failed PostgreSQL call as a coded 503. node-postgres errors may carry a `detail` with
 * the row's values: only the first line of the message and the SQLSTATE are kept, as the
 * error's `reason` (for the logs; the message is fixed).
 */
export function unavailable (error: unknown): Error {
  if (error instanceof Error && (error as { code?: unknown }).code?.toString().startsWith('PAYWIRE_ERR_') === true) return error
  const message = error instanceof Error ? error.message : String(error)
  const state = (error as { code?: unknown } | null)?.code
  const reason = `${(message.split('\n')[0] ?? '').slice(0, 160)}${typeof state === 'string' ? ` [${state}]` : ''}`
  const name = error instanceof Error ? error.name : 'Error'
  // An Error, so loggers serialize it as the cause; its own stack would only point here.
  const cause = Object.assign(new Error(reason), { name, stack: `${name}: ${reason}` })
  return Object.assign(new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('PostgreSQL', { cause }), { reason })
}

/** A query config pg sends as a named prepared statement: parsed and planned once per connection. */
export interface Prepared {
  name: string
  text: string
  values: unknown[]
}

/**
 * A hot statement, prepared: its name is a hash of its text (the schema is in the text), so
 * two schemas on one pool, or two texts, never share a name (pg refuses one name for two texts).
 */
export function prepared (text: string): (values: unknown[]) => Prepared {
  const name = `paywire_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`
  return (values) => ({ name, text, values })
}

/** Awaits a PostgreSQL call, turning its failures into PAYWIRE_ERR_STORAGE_UNAVAILABLE. */
export async function guarded<T> (call: Promise<T>): Promise<T> {
  try {
    return await call
  } catch (error) {
    throw unavailable(error)
  }
}

/**
 * The commit function's verdict: 'ok', 'claim_lost', 'token_used' (a token it would use up
 * was used by another request), or the position (from 1) of the write whose version moved on.
 */
export type CommitVerdict = 'ok' | 'claim_lost' | 'token_used' | number

/** Calls the schema's commit function (see migrations.ts) with one payload. */
export async function callCommit (pool: { query: (config: Prepared) => Promise<{ rows: Array<{ answer: string }> }> }, sql: (values: unknown[]) => Prepared, payload: string): Promise<CommitVerdict> {
  try {
    const { rows } = await pool.query(sql([payload]))
    return rows[0]?.answer === 'claim_lost' ? 'claim_lost' : 'ok'
  } catch (error) {
    // A compare-and-set that lost, or a used token: raised by the function, which rolled the statement back.
    if ((error as { code?: unknown }).code === 'PW409') return Number((error as Error).message)
    if ((error as { code?: unknown }).code === 'PW410') return 'token_used'
    throw unavailable(error)
  }
}
