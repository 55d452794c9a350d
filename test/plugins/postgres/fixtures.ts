/*
 * Shared by the PostgreSQL tests: the real PostgreSQL on DATABASE_URL, a schema of the
 * test file's own (created and migrated on first use, dropped at teardown).
 */
import { randomUUID } from 'node:crypto'
import { setTimeout } from 'node:timers/promises'
import pg from 'pg'
import { migrate } from '../../../plugins/postgres/migrations.ts'

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

interface Teardown {
  teardown (fn: () => Promise<void>): void
}

export interface TestPostgres {
  pool: pg.Pool
  schema: string
}

/** A schema name unique to this process and call: lower case, as the plugin wants. */
export function schemaName (name: string): string {
  return `t_${name.replace(/\W/g, '_')}_${process.pid}_${randomUUID().slice(0, 8)}`.toLowerCase()
}

/** A pool and an empty schema (migrated unless `migrated: false`); both go away at teardown. */
export async function testPostgres (t: Teardown, name: string, { migrated = true } = {}): Promise<TestPostgres> {
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 })
  const schema = schemaName(name)
  t.teardown(async () => {
    await dropSchema(pool, schema)
    await pool.end()
  })
  if (migrated) await migrate(pool, schema)
  return { pool, schema }
}

export async function dropSchema (pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
}

/**
 * Resolves once `count` statements on this schema wait for a lock: the barrier a race test holds
 * a transaction open on (polled, as PostgreSQL has no event for it).
 */
export async function blockedOnALock (pool: pg.Pool, schema: string, count = 1): Promise<void> {
  for (;;) {
    const { rows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND datname = current_database() AND query LIKE $1`, [`%"${schema}"%`])
    if ((rows[0]?.n ?? 0) >= count) return
    await setTimeout(5)
  }
}
