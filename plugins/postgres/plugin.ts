import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import pg from 'pg'
import { describeConnectionAs, errorCodes } from '../core/engine/index.ts'
import {
  PAYWIRE_ERR_POSTGRES_NOT_DURABLE, PAYWIRE_ERR_POSTGRES_UNREACHABLE, PAYWIRE_WARN_POSTGRES_NOT_DURABLE
} from './errors.ts'
import { assertSchemaVersion, migrate } from './migrations.ts'
import { poolOf, validateOptions } from './options.ts'
import { PostgresStorageBackend, type PostgresStorageBackendOptions } from './postgres-storage-backend.ts'
import { redactPostgresUrl } from './sql.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Paywire's PostgreSQL backend: pass it as the paywire plugin's `backend` option. */
    paywirePostgres: PostgresStorageBackend
  }
}

export interface PaywirePostgresOptions extends PostgresStorageBackendOptions {
  /** Where PostgreSQL is. Default: DATABASE_URL. Not with `pool`. */
  connectionString?: string
  /** A pool the application has: a pg.Pool, or @fastify/postgres's `app.pg`. Left open on close. */
  pool?: pg.Pool | { pool: pg.Pool }
  /** Apply the package's migrations at boot (under a lock, once). Default false: boot only checks the schema version. */
  migrate?: boolean
  /** Fail boot when the server does not make commits durable (fsync or synchronous_commit off). Default false: a coded warning is logged. */
  requireDurability?: boolean
  /** How long boot waits for PostgreSQL (ms). Default 5000. */
  connectTimeoutMs?: number
  /** How long one query may take on the plugin's own pool (ms) before the request fails with a 503. Default 5000. */
  queryTimeoutMs?: number
  /** Connections of the plugin's own pool. Default 10. */
  poolSize?: number
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000
export const DEFAULT_QUERY_TIMEOUT_MS = 5000
export const DEFAULT_POOL_SIZE = 10

function describePool (pool: pg.Pool): string {
  const { connectionString, host, port, database } = pool.options as { connectionString?: string, host?: string, port?: number, database?: string }
  if (connectionString !== undefined) return redactPostgresUrl(connectionString)
  return `postgres://${host ?? 'localhost'}:${port ?? 5432}/${database ?? ''}`
}

/** The settings that decide whether a commit PostgreSQL acknowledged survives a crash of the server. */
async function durabilityProblem (pool: pg.Pool): Promise<string | undefined> {
  const { rows } = await pool.query<{ fsync: string, synchronous_commit: string }>(
    "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit")
  const settings = rows[0] as { fsync: string, synchronous_commit: string }
  const problems = []
  if (settings.fsync === 'off') problems.push('fsync is off')
  if (settings.synchronous_commit === 'off') problems.push('synchronous_commit is off')
  return problems.length === 0 ? undefined : problems.join(', ')
}

const paywirePostgresPlugin: FastifyPluginAsync<PaywirePostgresOptions> = async function paywirePostgres (app, options) {
  validateOptions(options)
  const given = options.pool === undefined ? undefined : poolOf(options.pool) as pg.Pool
  const connectionString = options.connectionString ?? process.env.DATABASE_URL
  if (given === undefined && (connectionString === undefined || connectionString === '')) {
    throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('connectionString',
      'is required: pass connectionString (postgres://user@host:5432/db), a pool, or set DATABASE_URL')
  }
  const queryTimeout = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS
  const pool = given ?? new pg.Pool({
    connectionString,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    // The server cancels a statement that runs too long; the client gives up on a server that went silent.
    statement_timeout: queryTimeout,
    query_timeout: queryTimeout + 1000
  })
  const label = given === undefined ? redactPostgresUrl(connectionString as string) : describePool(pool)
  // The plugin's own pool keeps the connection string, password included, in its options; an
  // application's pool is left as it is (its holders below hide it, see hideConnection).
  if (given === undefined) describeConnectionAs(pool, () => `Pool { url: '${label}', total: ${pool.totalCount}, idle: ${pool.idleCount} }`)
  const schema = options.schema ?? 'paywire'
  // An idle connection's error (the server restarted) would otherwise crash the process; pg reconnects on next use.
  const logError = function paywirePostgresError (error: Error): void {
    app.log.error({ err: { name: error.name, message: error.message.split('\n')[0] }, postgres: label }, 'PostgreSQL connection error')
  }
  pool.on('error', logError)
  const close = async (): Promise<void> => {
    pool.off('error', logError)
    if (given === undefined) await pool.end()
  }
  try {
    try {
      await pool.query('SELECT 1')
    } catch (error) {
      throw new PAYWIRE_ERR_POSTGRES_UNREACHABLE(label, (error as Error).message.split('\n')[0] ?? 'unknown error', { cause: error })
    }
    if (options.migrate === true) {
      const result = await migrate(pool, schema)
      if (result.applied.length > 0) app.log.info({ schema, from: result.from, to: result.to }, 'PostgreSQL schema migrated')
    } else {
      await assertSchemaVersion(pool, schema)
    }
    const problem = await durabilityProblem(pool)
    if (problem !== undefined) {
      if (options.requireDurability === true) throw new PAYWIRE_ERR_POSTGRES_NOT_DURABLE(label, problem)
      app.log.warn({ code: PAYWIRE_WARN_POSTGRES_NOT_DURABLE, postgres: label, problem },
        `PostgreSQL does not make commits durable (${problem}): a server crash could lose payments. See docs/durability.md.`)
    }
  } catch (error) {
    await close()
    throw error
  }

  const backend = new PostgresStorageBackend(pool, options)
  app.decorate('paywirePostgres', backend)
  app.addHook('onClose', async function paywirePostgresOnClose () {
    await backend.settled()
    await close()
  })
}

/** PostgreSQL for Paywire's payments (and, unless Redis holds them, its tokens and claims), on node-postgres. Register it before the paywire plugin. */
export const paywirePostgres = fp(paywirePostgresPlugin, { name: 'paywire-postgres', fastify: '5.x' })
