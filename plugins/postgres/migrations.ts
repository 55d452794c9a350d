import type { Pool, PoolClient } from 'pg'
import { PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED, PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW } from './errors.ts'
import { dueMigration } from './due-migration.ts'
import { searchMigration } from './search-migration.ts'
import { quoted } from './sql.ts'

/*
 * The schema Paywire keeps in PostgreSQL, as numbered migrations shipped with the package.
 * Each runs once per schema, in a transaction, recorded in paywire_migrations; an advisory
 * lock per schema lets several instances booting with `migrate: true` (or a deploy step
 * racing one) apply them once. Migrations are never edited once released: a change is a
 * new migration. Nothing here runs unless asked (migrate(), `npx paywire migrate`, or the
 * plugin's `migrate: true`); boot only reads the version and refuses an outdated schema.
 */

export interface Migration {
  version: number
  name: string
  /** The SQL, for a schema name already quoted. */
  sql: (schema: string) => string
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records, tokens, claims and the commit function',
    sql: (s) => `
CREATE TABLE ${s}.records (
  model text NOT NULL,
  id text NOT NULL,
  -- Creation order, for findBy() pagination.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  version bigint NOT NULL,
  number text,
  status text,
  amount bigint,
  currency text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  record jsonb NOT NULL
);
-- md5(id): an id of any length fits the index (a btree entry holds at most ~2.7 kB).
CREATE UNIQUE INDEX records_identity ON ${s}.records (model, md5(id));
CREATE INDEX records_order ON ${s}.records (model, seq);
-- Hash indexes hold a hash of the value: any length fits.
CREATE INDEX records_number ON ${s}.records USING hash (number);
-- findBy() on any other field: containment (record @> '{"details":{"id":"PAY-1"}}').
CREATE INDEX records_record ON ${s}.records USING gin (record jsonb_path_ops);

CREATE TABLE ${s}.tokens (
  hash text NOT NULL,
  model text,
  model_id text,
  token jsonb NOT NULL,
  used boolean NOT NULL DEFAULT false,
  -- NULL: never expires.
  expires_at timestamptz
);
CREATE UNIQUE INDEX tokens_hash ON ${s}.tokens (md5(hash));
CREATE INDEX tokens_expiry ON ${s}.tokens (expires_at) WHERE expires_at IS NOT NULL;

-- Unlogged: taking a claim writes no WAL and waits for no disk flush. A server crash empties
-- the table, which releases every claim, as their expiry would: a request that still thinks it
-- holds one finds it gone at its commit (claim_lost) and writes nothing.
CREATE UNLOGGED TABLE ${s}.claims (
  key text NOT NULL,
  id text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX claims_key ON ${s}.claims (md5(key));
CREATE INDEX claims_expiry ON ${s}.claims (expires_at);

-- One request's commit in one statement: the claim is checked (and locked), every write is
-- a compare-and-set, the tokens are used up and the claim released. Answers 'ok' or
-- 'claim_lost'; a write whose version moved on raises SQLSTATE PW409 with the write's
-- position (from 1) as its message, which rolls the whole statement back.
CREATE FUNCTION ${s}.paywire_commit(payload jsonb) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  w jsonb;
  n integer := 0;
  expected bigint;
  changed integer;
BEGIN
  IF payload ? 'claim' THEN
    PERFORM 1 FROM ${s}.claims
      WHERE md5(key) = md5(payload->'claim'->>'key') AND key = payload->'claim'->>'key'
        AND id = payload->'claim'->>'id' AND expires_at > clock_timestamp()
      FOR UPDATE;
    IF NOT FOUND THEN RETURN 'claim_lost'; END IF;
  END IF;
  FOR w IN SELECT value FROM jsonb_array_elements(payload->'writes') LOOP
    n := n + 1;
    expected := (w->>'expected')::bigint;
    IF w->'record' = 'null'::jsonb THEN
      DELETE FROM ${s}.records WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id'
        AND (expected = -1 OR version = expected);
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 AND expected <> -1 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSIF expected = 0 THEN
      INSERT INTO ${s}.records (model, id, version, number, status, amount, currency, record)
        VALUES (w->>'model', w->>'id', 1, w->>'number', w->>'status', (w->>'amount')::bigint, w->>'currency', w->'record')
        ON CONFLICT (model, md5(id)) DO NOTHING;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSE
      UPDATE ${s}.records SET version = version + 1, number = w->>'number', status = w->>'status',
          amount = (w->>'amount')::bigint, currency = w->>'currency', record = w->'record', updated_at = now()
        WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id' AND version = expected;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    END IF;
  END LOOP;
  IF jsonb_array_length(payload->'tokens') > 0 THEN
    UPDATE ${s}.tokens SET used = true,
        expires_at = CASE WHEN (payload->>'usedTtlMs')::bigint > 0
          THEN clock_timestamp() + (payload->>'usedTtlMs')::bigint * interval '1 millisecond' END
      WHERE md5(hash) IN (SELECT md5(value) FROM jsonb_array_elements_text(payload->'tokens'))
        AND hash IN (SELECT value FROM jsonb_array_elements_text(payload->'tokens'))
        AND NOT used AND (expires_at IS NULL OR expires_at > clock_timestamp());
  END IF;
  IF payload ? 'claim' AND (payload->>'release')::boolean THEN
    DELETE FROM ${s}.claims WHERE md5(key) = md5(payload->'claim'->>'key') AND id = payload->'claim'->>'id';
  END IF;
  RETURN 'ok';
END
$fn$;`
  },
  {
    version: 2,
    name: 'the event outbox, written by the commit function',
    sql: (s) => `
-- Events waiting for delivery, in commit order per partition (a payment). Delivered events are
-- deleted; dead ones (every attempt failed) are kept, the newest 1000.
CREATE TABLE ${s}.outbox (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partition text NOT NULL,
  id text NOT NULL,
  type text NOT NULL,
  event text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  due_ms bigint NOT NULL,
  last_error text,
  dead_at timestamptz
);
CREATE UNIQUE INDEX outbox_id ON ${s}.outbox (md5(id));
CREATE INDEX outbox_waiting ON ${s}.outbox (partition, seq) WHERE dead_at IS NULL;
CREATE INDEX outbox_dead ON ${s}.outbox (dead_at, seq) WHERE dead_at IS NOT NULL;

-- Which instance delivers a partition's events; unlogged like claims (a server crash releases them).
CREATE UNLOGGED TABLE ${s}.outbox_leases (
  partition text PRIMARY KEY,
  id text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE OR REPLACE FUNCTION ${s}.paywire_commit(payload jsonb) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  w jsonb;
  n integer := 0;
  expected bigint;
  changed integer;
BEGIN
  IF payload ? 'claim' THEN
    PERFORM 1 FROM ${s}.claims
      WHERE md5(key) = md5(payload->'claim'->>'key') AND key = payload->'claim'->>'key'
        AND id = payload->'claim'->>'id' AND expires_at > clock_timestamp()
      FOR UPDATE;
    IF NOT FOUND THEN RETURN 'claim_lost'; END IF;
  END IF;
  FOR w IN SELECT value FROM jsonb_array_elements(payload->'writes') LOOP
    n := n + 1;
    expected := (w->>'expected')::bigint;
    IF w->'record' = 'null'::jsonb THEN
      DELETE FROM ${s}.records WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id'
        AND (expected = -1 OR version = expected);
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 AND expected <> -1 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSIF expected = 0 THEN
      INSERT INTO ${s}.records (model, id, version, number, status, amount, currency, record)
        VALUES (w->>'model', w->>'id', 1, w->>'number', w->>'status', (w->>'amount')::bigint, w->>'currency', w->'record')
        ON CONFLICT (model, md5(id)) DO NOTHING;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSE
      UPDATE ${s}.records SET version = version + 1, number = w->>'number', status = w->>'status',
          amount = (w->>'amount')::bigint, currency = w->>'currency', record = w->'record', updated_at = now()
        WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id' AND version = expected;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    END IF;
  END LOOP;
  IF jsonb_array_length(payload->'tokens') > 0 THEN
    UPDATE ${s}.tokens SET used = true,
        expires_at = CASE WHEN (payload->>'usedTtlMs')::bigint > 0
          THEN clock_timestamp() + (payload->>'usedTtlMs')::bigint * interval '1 millisecond' END
      WHERE md5(hash) IN (SELECT md5(value) FROM jsonb_array_elements_text(payload->'tokens'))
        AND hash IN (SELECT value FROM jsonb_array_elements_text(payload->'tokens'))
        AND NOT used AND (expires_at IS NULL OR expires_at > clock_timestamp());
  END IF;
  -- The events the writes make, in the same transaction: the transactional outbox.
  IF payload ? 'events' THEN
    INSERT INTO ${s}.outbox (partition, id, type, event, due_ms)
      SELECT e.value->>'partition', e.value->>'id', e.value->>'type', e.value->>'json',
          (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        FROM jsonb_array_elements(payload->'events') WITH ORDINALITY AS e(value, position)
        ORDER BY e.position;
  END IF;
  IF payload ? 'claim' AND (payload->>'release')::boolean THEN
    DELETE FROM ${s}.claims WHERE md5(key) = md5(payload->'claim'->>'key') AND id = payload->'claim'->>'id';
  END IF;
  RETURN 'ok';
END
$fn$;`
  },
  {
    version: 3,
    name: 'idempotency records',
    sql: (s) => `
-- The GraphQL layer's Idempotency-Key records (PostgresIdempotencyStore): logged, so a
-- completed operation is still answered from its record after a server restart.
CREATE TABLE ${s}.idempotency (
  key text NOT NULL,
  owner text NOT NULL,
  record jsonb NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX idempotency_key ON ${s}.idempotency (md5(key));
CREATE INDEX idempotency_expiry ON ${s}.idempotency (expires_at);`
  },
  {
    version: 4,
    name: 'commits refuse a token another request used up',
    sql: (s) => `
-- The commit function of migration 2, which locks the request's tokens before its claim and
-- refuses the commit when one of them is used (see PostgresTokenStorage.claim for the other half).
CREATE OR REPLACE FUNCTION ${s}.paywire_commit(payload jsonb) RETURNS text LANGUAGE plpgsql AS $fn$
DECLARE
  w jsonb;
  n integer := 0;
  expected bigint;
  changed integer;
  spent integer;
BEGIN
  -- The request's tokens first, locked whatever their state: a claim taken through a token
  -- locks its row, then the claim, so both go in the same order and never deadlock; and a
  -- token another request used up refuses the commit (SQLSTATE PW410, all rolled back)
  -- instead of letting its UPDATE below match no row.
  IF jsonb_array_length(payload->'tokens') > 0 THEN
    SELECT count(*) FILTER (WHERE locked.used) INTO spent FROM (
      SELECT used FROM ${s}.tokens
        WHERE md5(hash) IN (SELECT md5(value) FROM jsonb_array_elements_text(payload->'tokens'))
          AND hash IN (SELECT value FROM jsonb_array_elements_text(payload->'tokens'))
        FOR UPDATE
    ) AS locked;
    IF spent > 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW410', MESSAGE = 'token used'; END IF;
  END IF;
  IF payload ? 'claim' THEN
    PERFORM 1 FROM ${s}.claims
      WHERE md5(key) = md5(payload->'claim'->>'key') AND key = payload->'claim'->>'key'
        AND id = payload->'claim'->>'id' AND expires_at > clock_timestamp()
      FOR UPDATE;
    IF NOT FOUND THEN RETURN 'claim_lost'; END IF;
  END IF;
  FOR w IN SELECT value FROM jsonb_array_elements(payload->'writes') LOOP
    n := n + 1;
    expected := (w->>'expected')::bigint;
    IF w->'record' = 'null'::jsonb THEN
      DELETE FROM ${s}.records WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id'
        AND (expected = -1 OR version = expected);
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 AND expected <> -1 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSIF expected = 0 THEN
      INSERT INTO ${s}.records (model, id, version, number, status, amount, currency, record)
        VALUES (w->>'model', w->>'id', 1, w->>'number', w->>'status', (w->>'amount')::bigint, w->>'currency', w->'record')
        ON CONFLICT (model, md5(id)) DO NOTHING;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    ELSE
      UPDATE ${s}.records SET version = version + 1, number = w->>'number', status = w->>'status',
          amount = (w->>'amount')::bigint, currency = w->>'currency', record = w->'record', updated_at = now()
        WHERE model = w->>'model' AND md5(id) = md5(w->>'id') AND id = w->>'id' AND version = expected;
      GET DIAGNOSTICS changed = ROW_COUNT;
      IF changed = 0 THEN RAISE EXCEPTION USING ERRCODE = 'PW409', MESSAGE = n::text; END IF;
    END IF;
  END LOOP;
  IF jsonb_array_length(payload->'tokens') > 0 THEN
    UPDATE ${s}.tokens SET used = true,
        expires_at = CASE WHEN (payload->>'usedTtlMs')::bigint > 0
          THEN clock_timestamp() + (payload->>'usedTtlMs')::bigint * interval '1 millisecond' END
      WHERE md5(hash) IN (SELECT md5(value) FROM jsonb_array_elements_text(payload->'tokens'))
        AND hash IN (SELECT value FROM jsonb_array_elements_text(payload->'tokens'))
        AND NOT used AND (expires_at IS NULL OR expires_at > clock_timestamp());
  END IF;
  -- The events the writes make, in the same transaction: the transactional outbox.
  IF payload ? 'events' THEN
    INSERT INTO ${s}.outbox (partition, id, type, event, due_ms)
      SELECT e.value->>'partition', e.value->>'id', e.value->>'type', e.value->>'json',
          (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        FROM jsonb_array_elements(payload->'events') WITH ORDINALITY AS e(value, position)
        ORDER BY e.position;
  END IF;
  IF payload ? 'claim' AND (payload->>'release')::boolean THEN
    DELETE FROM ${s}.claims WHERE md5(key) = md5(payload->'claim'->>'key') AND id = payload->'claim'->>'id';
  END IF;
  RETURN 'ok';
END
$fn$;`
  },
  {
    version: 5,
    name: 'payment facets for operator search and the reconciliation sweeper',
    sql: searchMigration
  },
  {
    version: 6,
    name: 'the outbox\'s due index: one row per partition with events waiting',
    sql: dueMigration
  }
]

/** The schema version this Paywire needs. */
export const LATEST_SCHEMA_VERSION = MIGRATIONS.at(-1)?.version ?? 0

type Queryable = Pool | PoolClient

/** The schema's migration version: 0 when Paywire never migrated it. */
export async function schemaVersion (db: Queryable, schema: string): Promise<number> {
  const table = await db.query<{ exists: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS exists', [`${quoted(schema)}.paywire_migrations`])
  if (table.rows[0]?.exists !== true) return 0
  const version = await db.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${quoted(schema)}.paywire_migrations`)
  return version.rows[0]?.version ?? 0
}

/** Boot's check: the schema must be exactly at the version this Paywire knows. */
export async function assertSchemaVersion (db: Queryable, schema: string): Promise<void> {
  const version = await schemaVersion(db, schema)
  if (version < LATEST_SCHEMA_VERSION) throw new PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED(schema, version, LATEST_SCHEMA_VERSION, schema)
  if (version > LATEST_SCHEMA_VERSION) throw new PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW(schema, version, LATEST_SCHEMA_VERSION)
}

export interface MigrationResult {
  schema: string
  from: number
  to: number
  /** The migrations this call applied (none when the schema was up to date). */
  applied: Array<{ version: number, name: string }>
}

/**
 * Brings the schema to LATEST_SCHEMA_VERSION: creates it if needed and applies each
 * missing migration in one transaction under an advisory lock, so concurrent callers
 * apply each migration once. Safe to run again: an up-to-date schema is left untouched.
 */
export async function migrate (pool: Pool, schema: string): Promise<MigrationResult> {
  const client = await pool.connect()
  const s = quoted(schema)
  try {
    await client.query('BEGIN')
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`paywire-migrate:${schema}`])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.paywire_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`)
    const from = await schemaVersion(client, schema)
    if (from > LATEST_SCHEMA_VERSION) throw new PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW(schema, from, LATEST_SCHEMA_VERSION)
    // By the versions applied, not the highest one: a version numbered below one already applied (reserved, shipped later) still runs.
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${s}.paywire_migrations`)
    const done = new Set(rows.map((row) => row.version))
    const applied: Array<{ version: number, name: string }> = []
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue
      await client.query(migration.sql(s))
      await client.query(`INSERT INTO ${s}.paywire_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
      applied.push({ version: migration.version, name: migration.name })
    }
    await client.query('COMMIT')
    return { schema, from, to: LATEST_SCHEMA_VERSION, applied }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  } finally {
    client.release()
  }
}
