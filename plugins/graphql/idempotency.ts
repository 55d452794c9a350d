import { OperationIdempotency, type IdempotencySettings, type IdempotencyStore } from '../core/engine/index.ts'
import { PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS, PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED } from './codes.ts'

export { DEFAULT_IDEMPOTENCY, canonicalJson, fingerprint, type IdempotencySettings, type Replayable } from '../core/engine/index.ts'

/**
 * The engine's OperationIdempotency (shared with the operator console) answering with the
 * GraphQL plugin's codes: IdempotencyKeyReused and IdempotencyKeyInProgress.
 */
export class Idempotency extends OperationIdempotency {
  constructor (store: IdempotencyStore, settings: IdempotencySettings) {
    super(store, settings, {
      reused: (operation) => new PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED(operation),
      inProgress: (operation) => new PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS(operation)
    })
  }
}
