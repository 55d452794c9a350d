import { inspect } from 'node:util'
import {
  StorageBackend, assertTokenTtls,
  type CommitSet, type ModelClass, type StagedWrite, type Storage, type StorageOptions, type Token, type TokenStorage, type TokenTtls, hideConnection
} from '../core/engine/index.ts'
import { dropSettledCommands, type RedisClient } from './keys.ts'
import type { TokenToSave } from './commit-script.ts'
import { commitOnRedis } from './redis-commit.ts'
import { RedisOutbox } from './redis-outbox.ts'
import { RedisIdempotencyStore } from './redis-idempotency-store.ts'
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

/** Tokens, claims and records in one Redis, under one key prefix; a request's commit is one script. */
export class RedisStorageBackend extends StorageBackend {
  readonly client: RedisClient
  readonly keyPrefix: string
  readonly #tokenTtl: TokenTtls
  readonly #indexes: Record<string, string[]>
  /** Set once a storage was made: the backend keeps records, not only tokens (the plugin checks durability then). */
  storesRecords = false

  constructor (client: RedisClient, options: RedisStorageBackendOptions = {}) {
    super()
    this.client = client
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'client')
    // A command that timed out is never sent later: a 503 means nothing was written.
    dropSettledCommands(client)
    this.keyPrefix = options.keyPrefix ?? 'paywire:'
    this.#tokenTtl = assertTokenTtls(options.tokenTtl ?? {}, 'tokenTtl')
    this.#indexes = { ...DEFAULT_INDEXES, ...options.indexes }
  }

  createTokenStorage (): TokenStorage {
    // Records are read with their tokens only where this backend keeps them (not beside PostgreSQL).
    return new RedisTokenStorage(this.client, { keyPrefix: this.keyPrefix, ttl: this.#tokenTtl, readsRecords: () => this.storesRecords })
  }

  createStorage<T extends object> (Model: ModelClass<T>, options: StorageOptions<T> = {}): Storage<T> {
    const indexes = options.indexes ?? this.#indexes[options.modelName ?? Model.name]
    this.storesRecords = true
    return new RedisStorage(this.client, Model, { ...options, indexes, keyPrefix: this.keyPrefix })
  }

  /** One script per slot when every part lives in this Redis (see redis-commit.ts); step by step (the base class) otherwise. */
  override async commit (set: CommitSet, tokens: TokenStorage): Promise<void> {
    if (!this.#own(set.writes, tokens) || set.unstaged.length > 0) return await super.commit(set, tokens)
    await commitOnRedis(this.client, {
      writes: set.writes,
      invalidateTokens: set.invalidateTokens,
      tombstoneTtlMs: tokens.usedTokenTtlMs,
      claim: set.claim,
      releaseClaim: set.releaseClaim,
      tokenKeyOf: (hash) => tokens.tokenKey(hash),
      events: set.events,
      ...this.outbox.commitParts()
    })
  }

  /**
   * A prepared payment and its tokens in its first write's script (one per slot, as a commit),
   * when both live in this Redis: all or nothing. Side by side (the base class) otherwise.
   */
  override async saveWithTokens (write: StagedWrite, tokens: readonly Token[], tokenStorage: TokenStorage): Promise<void> {
    if (!this.#own([write], tokenStorage)) return await super.saveWithTokens(write, tokens, tokenStorage)
    // Pushed, not map()ped: the commit's optimized code then sees one array map whatever this code's tier (see redis-commit.ts).
    const saveTokens: TokenToSave[] = []
    for (const token of tokens) saveTokens.push(tokenStorage.toSave(token))
    await commitOnRedis(this.client, {
      writes: [write],
      invalidateTokens: [],
      saveTokens,
      tombstoneTtlMs: 0,
      releaseClaim: false,
      tokenKeyOf: (hash) => tokenStorage.tokenKey(hash)
    })
  }

  /** Whether the writes' storages and the token storage are this backend's, on its client. */
  #own (writes: readonly StagedWrite[], tokens: TokenStorage): tokens is RedisTokenStorage {
    return tokens instanceof RedisTokenStorage && tokens.client === this.client &&
      writes.every((write) => write.storage instanceof RedisStorage && write.storage.client === this.client)
  }

  /** Events in their payment's slot, appended by the commit script (see redis-outbox.ts). */
  override get outbox (): RedisOutbox {
    return super.outbox as RedisOutbox
  }

  protected override createOutbox (): RedisOutbox {
    return new RedisOutbox(this.client, this.keyPrefix)
  }

  /** The client's options and connection state hold its password: inspect() shows neither. */
  [inspect.custom] (): string {
    return `RedisStorageBackend { keyPrefix: '${this.keyPrefix}', client: Redis { status: '${this.client.status}' } }`
  }

  /** PING through the backend's own client (a Cluster pings one of its masters). */
  override async ping (): Promise<void> {
    await this.client.ping()
  }

  override createIdempotencyStore (namespace: string): RedisIdempotencyStore {
    return new RedisIdempotencyStore(this.client, this.keyPrefix, namespace)
  }
}
