import { PAYWIRE_ERR_CLAIM_LOST } from '../errors.ts'
import type { OutboxRecord } from '../events/payment-events.ts'
import type { Claim, TokenStorage } from '../security/token-storage.ts'
import { AbstractStorage, type StagedWrite } from '../storage/abstract-storage.ts'
import type { UnstagedSave } from './commit-set.ts'
import type { StorageBackend } from './storage-backend.ts'
import type { Storage } from '../storage/storage.ts'
import type { PaymentFacets } from '../storage/payment-search.ts'
import { runInSpan, startStorageCommitSpan } from '../observability/telemetry.ts'

export interface UnitOfWorkParts {
  backend: StorageBackend
  tokenStorage: TokenStorage
  /** The claim the request holds on its payment, if any. */
  claim?: Claim
  claimTtlMs?: number
  /**
   * Stages the events the writes make (status changes, refunds: see describeWrites) into
   * the same commit, and hears when they are stored (to wake the dispatcher for them).
   * `describe` also fills `facets` with each Payment write's facets, from the same reading,
   * and the commit carries them (StagedWrite.facets) for the backend to store with the record.
   */
  events?: {
    describe: (writes: readonly StagedWrite[], facets: Map<StagedWrite, PaymentFacets>) => OutboxRecord[]
    committed: (events: readonly OutboxRecord[]) => void
  }
}

/**
 * What one request writes, committed together: the models its gateway execution changed
 * (the storage extension adds them), the tokens it used up, and the release of its claim.
 * Pass one to `Gateway.execute(request, { unit })`; ExclusiveExecutor does, and commits it.
 *
 * A checkpoint commits the models changed so far and keeps the claim: gateways take one
 * (`execute(new Checkpoint())`) to store an idempotency id before the provider call it
 * makes safe to repeat.
 */
export class UnitOfWork {
  readonly claim: Claim | undefined
  readonly #parts: UnitOfWorkParts
  #saves = new Map<object, Storage>()
  #invalidate: string[] = []
  #lost = false
  #written = 0

  constructor (parts: UnitOfWorkParts) {
    this.#parts = parts
    this.claim = parts.claim
  }

  /** Models waiting for the next commit or checkpoint. */
  get pending (): number {
    return this.#saves.size
  }

  /** How many model writes this unit committed so far (checkpoints included). */
  get written (): number {
    return this.#written
  }

  /** False once the claim was found lost (a renewal failed): nothing more may be committed. */
  get holdsClaim (): boolean {
    return !this.#lost
  }

  save (model: object, storage: Storage): void {
    this.#saves.set(model, storage)
  }

  /** Uses the token up with the commit (not with a checkpoint). */
  invalidateToken (hash: string): void {
    this.#invalidate.push(hash)
  }

  /** Called when renewing the claim failed: every later commit and checkpoint is refused. */
  markClaimLost (): void {
    this.#lost = true
  }

  /** Stores the pending models now and keeps the claim. */
  async checkpoint (): Promise<void> {
    if (this.#saves.size === 0) return
    await this.#commit(false)
  }

  /** Stores the pending models, uses up the tokens and releases the claim, together. */
  async commit (): Promise<void> {
    await this.#commit(true)
    this.#invalidate = []
  }

  /** Gives up: pending models are dropped, the claim is released (best effort: it expires anyway). */
  async abandon (): Promise<void> {
    this.#saves.clear()
    this.#invalidate = []
    if (this.claim !== undefined) await this.#parts.tokenStorage.releaseClaim(this.claim).catch(() => {})
  }

  async #commit (release: boolean): Promise<void> {
    const { claim } = this
    if (claim !== undefined && this.#lost) throw new PAYWIRE_ERR_CLAIM_LOST(claim.key)
    const staged: Array<[object, StagedWrite]> = []
    const unstaged: UnstagedSave[] = []
    const targets = new Set<string>()
    for (const [model, storage] of this.#saves) {
      if (!(storage instanceof AbstractStorage)) {
        unstaged.push({ storage, model })
        continue
      }
      const write = storage.stage(model)
      // Two copies of one record in one request: writing both would let one erase the other.
      const target = `${storage.modelName}\n${write.id}`
      if (targets.has(target)) throw storage.conflict(write.id)
      targets.add(target)
      staged.push([model, write])
    }
    if (staged.length === 0 && unstaged.length === 0 && this.#invalidate.length === 0 && (claim === undefined || !release)) return
    const { backend, tokenStorage } = this.#parts
    const facets = new Map<StagedWrite, PaymentFacets>()
    const described = this.#parts.events
    // Pushed, not map()ped: an optimized map() makes a holey array and the interpreter a packed
    // one, and the storage's optimized code, seeing the other map, was thrown away and compiled again.
    const stagedWrites: StagedWrite[] = []
    for (const [, write] of staged) stagedWrites.push(write)
    const events = described?.describe(stagedWrites, facets) ?? []
    // Without a describer (a unit made by hand), the storage's own facetsOf reads the payment instead.
    const writes: StagedWrite[] = []
    for (const write of stagedWrites) {
      const found = described === undefined ? write.storage.facetsOf?.(write) : facets.get(write)
      writes.push(found === undefined ? write : { ...write, facets: found })
    }
    const set = {
      writes,
      unstaged,
      invalidateTokens: release ? this.#invalidate : [],
      claim,
      claimTtlMs: this.#parts.claimTtlMs ?? 0,
      releaseClaim: release,
      events
    }
    const span = startStorageCommitSpan(backend, staged.length + unstaged.length, !release)
    if (span === undefined) await backend.commit(set, tokenStorage)
    else await runInSpan(span, () => backend.commit(set, tokenStorage))
    if (events.length > 0) this.#parts.events?.committed(events)
    for (const [model, write] of staged) (write.storage as AbstractStorage<object>).settle(model, write)
    this.#written += staged.length + unstaged.length
    this.#saves.clear()
  }
}
