import type { Redis } from 'ioredis'
import { assertTokenTtls, type ModelClass, type Storage, type StorageBackend, type StorageOptions, type TokenStorage, type TokenTtls } from '../core/engine/index.ts'
import { RedisStorage } from './redis-storage.ts'
import { RedisTokenStorage } from './redis-token-storage.ts'

export interface RedisStorageBackendOptions {
  keyPrefix?: string
  /** Token lifetimes by kind, in seconds. */
  tokenTtl?: TokenTtls
  /** Indexed fields by model name; Payment defaults to number, clientId and clientEmail. */
  indexes?: Record<string, string[]>
}

export const DEFAULT_INDEXES: Readonly<Record<string, string[]>> = {
  // details.id: gateways keep the provider's payment id there (PayPal's PAY-…), and webhooks find the payment by it.
  Payment: ['number', 'clientId', 'clientEmail', 'details.id'],
  Payout: ['recipientId', 'recipientEmail']
}

/** Tokens and records in one Redis, under one key prefix. */
export class RedisStorageBackend implements StorageBackend {
  readonly client: Redis
  readonly keyPrefix: string
  readonly #tokenTtl: TokenTtls
  readonly #indexes: Record<string, string[]>

  constructor (client: Redis, options: RedisStorageBackendOptions = {}) {
    this.client = client
    this.keyPrefix = options.keyPrefix ?? 'paywire:'
    this.#tokenTtl = assertTokenTtls(options.tokenTtl ?? {}, 'tokenTtl')
    this.#indexes = { ...DEFAULT_INDEXES, ...options.indexes }
  }

  createTokenStorage (): TokenStorage {
    return new RedisTokenStorage(this.client, { keyPrefix: this.keyPrefix, ttl: this.#tokenTtl })
  }

  createStorage<T extends object> (Model: ModelClass<T>, options: StorageOptions<T> = {}): Storage<T> {
    const indexes = options.indexes ?? this.#indexes[options.modelName ?? Model.name]
    return new RedisStorage(this.client, Model, { ...options, indexes, keyPrefix: this.keyPrefix })
  }
}
