import { PAYWIRE_ERR_DUPLICATE_MODEL_NAME, PAYWIRE_ERR_STORAGE_NOT_REGISTERED } from '../errors.ts'
import type { ModelClass, Storage } from './storage.ts'

/** Storages by model class, and by model name for resolving identities. */
export class StorageRegistry {
  #byClass = new Map<Function, Storage>()
  #byName = new Map<string, Storage>()

  add<T extends object> (Model: ModelClass<T>, storage: Storage<T>): this {
    const existing = this.#byName.get(storage.modelName)
    if (existing !== undefined && existing !== this.#byClass.get(Model)) {
      throw new PAYWIRE_ERR_DUPLICATE_MODEL_NAME(storage.modelName)
    }
    const replaced = this.#byClass.get(Model)
    if (replaced !== undefined) this.#byName.delete(replaced.modelName)
    this.#byClass.set(Model, storage as Storage)
    this.#byName.set(storage.modelName, storage as Storage)
    return this
  }

  /** The storage of a model class or of a model's class (walking up to a registered parent class). */
  get<T extends object> (modelOrClass: ModelClass<T> | T): Storage<T> {
    let current: unknown = typeof modelOrClass === 'function' ? modelOrClass : modelOrClass.constructor
    while (typeof current === 'function' && current !== Object) {
      const storage = this.#byClass.get(current)
      if (storage !== undefined) return storage as Storage<T>
      current = Object.getPrototypeOf(current)
    }
    const name = typeof modelOrClass === 'function' ? modelOrClass.name : modelOrClass.constructor.name
    throw new PAYWIRE_ERR_STORAGE_NOT_REGISTERED(name, this.names().join(', ') || 'none')
  }

  has (Model: ModelClass): boolean {
    return this.#byClass.has(Model)
  }

  getByModelName (modelName: string): Storage | undefined {
    return this.#byName.get(modelName)
  }

  /** The storage that persists this model, if any. */
  supporting (model: unknown): Storage | undefined {
    for (const storage of this.#byClass.values()) {
      if (storage.support(model)) return storage
    }
    return undefined
  }

  all (): Storage[] {
    return [...this.#byClass.values()]
  }

  names (): string[] {
    return [...this.#byName.keys()]
  }
}
