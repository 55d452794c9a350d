import { MemoryTokenStorage, type MemoryTokenStorageOptions } from '../security/memory-token-storage.ts'
import type { TokenStorage } from '../security/token-storage.ts'
import { MemoryStorage } from './memory-storage.ts'
import type { StorageOptions } from './abstract-storage.ts'
import type { ModelClass, Storage } from './storage.ts'

/**
 * Where a Paywire keeps its records: one object makes the token storage and a storage
 * per model class, so switching memory → Redis is one option, and gateways that bring
 * their own record class (PayPal's PaymentDetails) get a storage of the same kind. Also
 * the service id under which gateway containers find the application's backend.
 */
export abstract class StorageBackend {
  abstract createTokenStorage (): TokenStorage
  abstract createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T>
}

/** The embedded default: everything in process memory. */
export class MemoryStorageBackend extends StorageBackend {
  readonly #tokenOptions: MemoryTokenStorageOptions

  constructor (tokenOptions: MemoryTokenStorageOptions = {}) {
    super()
    this.#tokenOptions = tokenOptions
  }

  createTokenStorage (): TokenStorage {
    return new MemoryTokenStorage(this.#tokenOptions)
  }

  createStorage<T extends object> (Model: ModelClass<T>, options?: StorageOptions<T>): Storage<T> {
    return new MemoryStorage(Model, options)
  }
}
