import createError from '@fastify/error'
import { withKind } from '../core/engine/index.ts'

/*
 * The PostgreSQL plugin's own codes (the engine's are in plugins/core/engine/errors.ts; all
 * of them are documented in docs/errors.md). Exported as postgresErrorCodes. Messages name
 * the server without its password and never carry records or query arguments.
 */

export const PAYWIRE_ERR_POSTGRES_UNREACHABLE = withKind('unavailable', createError<[string, string, { cause: unknown }?]>(
  'PAYWIRE_ERR_POSTGRES_UNREACHABLE',
  'PostgreSQL at %s is unreachable (%s). Check DATABASE_URL (or the connectionString option) and that the server is running.',
  500
))
export const PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED = withKind('misconfigured', createError<[string, number, number, string]>(
  'PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED',
  'The PostgreSQL schema "%s" is at version %d and this Paywire needs version %d. Run the migrations first (DATABASE_URL=<url> npx paywire migrate --schema %s, or the plugin option migrate: true); Paywire never changes a schema on its own.',
  500
))
export const PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW = withKind('misconfigured', createError<[string, number, number]>(
  'PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW',
  'The PostgreSQL schema "%s" is at version %d, newer than the version %d this Paywire knows: a newer Paywire migrated it. Upgrade this application, or point it at another schema.',
  500
))
export const PAYWIRE_ERR_POSTGRES_NOT_DURABLE = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_POSTGRES_NOT_DURABLE',
  'PostgreSQL at %s does not make commits durable (%s): a crash of the server could lose payments. Turn fsync and synchronous_commit on, or drop requireDurability (docs/durability.md).',
  500
))

/** Logged (at warn, with this code) at boot when commits would not survive a crash of the server; requireDurability makes it PAYWIRE_ERR_POSTGRES_NOT_DURABLE. */
export const PAYWIRE_WARN_POSTGRES_NOT_DURABLE = 'PAYWIRE_WARN_POSTGRES_NOT_DURABLE'
