export * as postgresErrorCodes from './errors.ts'
export { PostgresStorageBackend, type PostgresStorageBackendOptions } from './postgres-storage-backend.ts'
export { PostgresStorage, columnsOf, type PostgresStorageOptions, type RecordColumns } from './postgres-storage.ts'
export { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from './postgres-idempotency-store.ts'
export { PostgresTokenStorage, DEFAULT_SWEEP_INTERVAL_MS, type PostgresTokenStorageOptions } from './postgres-token-storage.ts'
export { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate, schemaVersion, type Migration, type MigrationResult } from './migrations.ts'
export { redactPostgresUrl } from './sql.ts'
export {
  DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_POOL_SIZE, DEFAULT_QUERY_TIMEOUT_MS, paywirePostgres, paywirePostgres as default, type PaywirePostgresOptions
} from './plugin.ts'
export { runMigrations, type MigrateCommandOptions } from './migrate-command.ts'
export { PostgresOutbox } from './postgres-outbox.ts'
