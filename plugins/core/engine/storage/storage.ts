import type { Identity } from '../model/identity.ts'
import type { ReadCache } from './read-cache.ts'

export type Criteria = Record<string, unknown>

export interface FindByOptions {
  /** Skip this many matches (in storage order). */
  offset?: number
  /** Return at most this many matches. */
  limit?: number
}

export interface FindOptions {
  /**
   * Records this request already read with something else (its token): a storage that finds
   * the record there takes that copy instead of reading it again (see ReadCache). Storages
   * may ignore it.
   */
  reads?: ReadCache
}

/**
 * Persists one model class. Models are stored by value: find() returns a fresh instance,
 * so a change is kept only when update() is called (the storage extension does that for
 * every model a gateway touched).
 *
 * Every stored record has a version. update() is a compare-and-set: it writes only if the
 * record still has the version the model was read with (or, for a model this storage never
 * read nor wrote, only if no record has its id yet), and otherwise fails with
 * PAYWIRE_ERR_CONCURRENT_UPDATE without writing anything. So no writer can erase a fact
 * another writer stored: the loser reads again and retries. docs/consistency.md says what a
 * custom storage must implement; test/plugins/core/engine/storage/contract.ts checks it.
 */
export interface Storage<T extends object = object> {
  /** The name tokens use to point at this storage's models (Identity.modelName). */
  readonly modelName: string
  create (): T
  support (model: unknown): model is T
  /**
   * Persists the model, giving it an id on first save; rejects with
   * PAYWIRE_ERR_CONCURRENT_UPDATE when the stored version moved on since the model was read.
   */
  update (model: T): Promise<void>
  /** Deletes the record; a compare-and-set like update() when the model was read from this storage. */
  delete (model: T): Promise<void>
  find (id: string | Identity, options?: FindOptions): Promise<T | null>
  /** Several models in one call (one round trip where the backend allows it), in the order asked; null where missing. */
  findMany (ids: readonly string[]): Promise<Array<T | null>>
  /** Models whose fields equal every criteria value; keys may be dotted paths ("details.id"). */
  findBy (criteria: Criteria, options?: FindByOptions): Promise<T[]>
  identify (model: T): Identity
  /** The version this model instance was read or last written with; undefined for a model never stored. */
  versionOf (model: T): number | undefined
  /**
   * Gives an unsaved model its id without saving it, so a token can point at it while its
   * first save is in flight. Optional: without it, Paywire.prepareCapture() saves first.
   */
  assignId? (model: T): Identity
}

export type ModelClass<T extends object = object> = new () => T
