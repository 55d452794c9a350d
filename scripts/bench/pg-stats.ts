import pg from 'pg'

export interface PgCounts {
  /** Statements sent to PostgreSQL (each query() call, on a pool or a checked-out client). */
  statements: number
  /** Transactions: each statement outside BEGIN … COMMIT/ROLLBACK is one, a BEGIN block is one. */
  transactions: number
}

/**
 * Counts what this process sends to PostgreSQL, by wrapping pg's Client#query (a pool's query()
 * goes through it too). The server has no pg_stat_statements here, and pg_stat_database's
 * counters are shared with every other client of the database: counted at the client, the
 * figures are exact whatever else runs.
 */
export function countPgStatements (): PgCounts {
  const counts: PgCounts = { statements: 0, transactions: 0 }
  const inBlock = new WeakSet<object>()
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown
  pg.Client.prototype.query = function counted (this: pg.Client, ...args: unknown[]) {
    const first = args[0]
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text ?? ''
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase()
    counts.statements++
    if (verb === 'BEGIN' || verb === 'START') inBlock.add(this)
    else if (verb === 'COMMIT' || verb === 'ROLLBACK' || verb === 'END') {
      inBlock.delete(this)
      counts.transactions++
    } else if (!inBlock.has(this)) counts.transactions++
    return query.apply(this, args)
  } as typeof pg.Client.prototype.query
  return counts
}
