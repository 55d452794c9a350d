import type { OutboxRecord } from '../events/payment-events.ts'
import type { Claim } from '../security/token-storage.ts'
import type { StagedWrite } from '../storage/abstract-storage.ts'
import type { Storage } from '../storage/storage.ts'

/** A model saved through a storage that does not stage writes (a custom Storage): it is update()d on its own. */
export interface UnstagedSave {
  storage: Storage
  model: object
}

/**
 * What one request commits at once: its model writes (each a compare-and-set), the tokens
 * it used up, and its claim on the payment — checked to be still held, and released unless
 * this is a checkpoint. StorageBackend.commit() applies it all or nothing where it can.
 */
export interface CommitSet {
  readonly writes: readonly StagedWrite[]
  readonly unstaged: readonly UnstagedSave[]
  /** Hashes of tokens to use up (see TokenStorage.invalidate). */
  readonly invalidateTokens: readonly string[]
  /** The request's claim: the commit fails with PAYWIRE_ERR_CLAIM_LOST unless it is still held. */
  readonly claim?: Claim
  /** How long a claim lasts, for backends that check it by renewing it. */
  readonly claimTtlMs: number
  /** Release the claim with the commit (the request is done), or keep it (a checkpoint). */
  readonly releaseClaim: boolean
  /**
   * The events the writes make (a status change, a refund): stored in the outbox with the
   * writes, all or nothing — the transactional outbox the event dispatcher delivers from.
   */
  readonly events?: readonly OutboxRecord[]
}
