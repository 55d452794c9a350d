import type { Identity } from '../model/identity.ts'

export type Criteria = Record<string, unknown>

export interface FindByOptions {
  /** Skip this many matches (in storage order). */
  offset?: number
  /** Return at most this many matches. */
  limit?: number
}

/**
 * Persists one model class. Models are stored by value: find() returns a fresh instance,
 * so a change is kept only when update() is called (the storage extension does that for
 * every model a gateway touched).
 */
export interface Storage<T extends object = object> {
  /** The name tokens use to point at this storage's models (Identity.modelName). */
  readonly modelName: string
  create (): T
  support (model: unknown): model is T
  /** Persists the model, giving it an id on first save. */
  update (model: T): Promise<void>
  delete (model: T): Promise<void>
  find (id: string | Identity): Promise<T | null>
  /** Several models in one call (one round trip where the backend allows it), in the order asked; null where missing. */
  findMany (ids: readonly string[]): Promise<Array<T | null>>
  /** Models whose fields equal every criteria value; keys may be dotted paths ("details.id"). */
  findBy (criteria: Criteria, options?: FindByOptions): Promise<T[]>
  identify (model: T): Identity
  /**
   * Gives an unsaved model its id without saving it, so a token can point at it while its
   * first save is in flight. Optional: without it, Paywire.prepareCapture() saves first.
   */
  assignId? (model: T): Identity
}

export type ModelClass<T extends object = object> = new () => T
