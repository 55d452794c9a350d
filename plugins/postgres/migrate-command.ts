import pg from 'pg'
import { errorCodes } from '../core/engine/index.ts'
import { PAYWIRE_ERR_POSTGRES_UNREACHABLE } from './errors.ts'
import { migrate, type MigrationResult } from './migrations.ts'
import { SCHEMA_NAME, redactPostgresUrl } from './sql.ts'

export interface MigrateCommandOptions {
  /** Default: DATABASE_URL. */
  connectionString?: string
  /** Default "paywire". */
  schema?: string
  /** Where progress lines go. Default: nowhere. */
  log?: (line: string) => void
}

/**
 * The migrate command (`npx paywire migrate`, the package's bin): applies the package's
 * migrations to one schema with a connection of its own, and says what it did. Safe to run
 * on every deploy: an up-to-date schema is left as it is.
 */
export async function runMigrations (options: MigrateCommandOptions = {}): Promise<MigrationResult> {
  const connectionString = options.connectionString ?? process.env.DATABASE_URL
  const schema = options.schema ?? 'paywire'
  const log = options.log ?? (() => {})
  if (connectionString === undefined || connectionString === '') {
    throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('connectionString', 'is required: set DATABASE_URL (postgres://user@host:5432/db)')
  }
  if (!SCHEMA_NAME.test(schema)) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('schema', 'must be a lower-case SQL identifier of at most 63 characters')
  const label = redactPostgresUrl(connectionString)
  const pool = new pg.Pool({ connectionString, max: 1, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  try {
    try {
      await pool.query('SELECT 1')
    } catch (error) {
      throw new PAYWIRE_ERR_POSTGRES_UNREACHABLE(label, (error as Error).message.split('\n')[0] ?? 'unknown error', { cause: error })
    }
    const result = await migrate(pool, schema)
    if (result.applied.length === 0) {
      log(`${label} schema "${schema}": up to date (version ${result.to})`)
    } else {
      for (const applied of result.applied) log(`${label} schema "${schema}": applied migration ${applied.version} (${applied.name})`)
      log(`${label} schema "${schema}": now at version ${result.to} (was ${result.from})`)
    }
    return result
  } finally {
    await pool.end()
  }
}
