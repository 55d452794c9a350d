/*
 * What a storage backend may offer for idempotent operations (the GraphQL plugin's
 * Idempotency-Key handling): records live where payments live, so they are as shared and
 * durable as the payments. Defined here so that a backend (Redis, PostgreSQL) and the plugin
 * using it depend on the engine, never on each other.
 */

/**
 * One claimed key. `owner` identifies the request that claimed it, so only that request
 * completes or releases it; `result` is set once the operation succeeded.
 */
export interface IdempotencyRecord {
  fingerprint: string
  owner: string
  result?: unknown
}

/**
 * Where idempotency records and payment locks live. Every method is atomic: two requests
 * claiming one key at the same time get one null (the winner) and one record.
 */
export interface IdempotencyStore {
  /** Stores the record for lockMs when the key is free and answers null; else answers the record already there. */
  claim (key: string, record: IdempotencyRecord, lockMs: number): Promise<IdempotencyRecord | null>
  /** Replaces the owner's claim by its completed record, kept for ttlMs. Does nothing when the claim was lost. */
  complete (key: string, record: IdempotencyRecord, ttlMs: number): Promise<void>
  /** Frees the owner's claim (after a failure), so a retry can run. */
  release (key: string, owner: string): Promise<void>
}
