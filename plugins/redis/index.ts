export { DEFAULT_CONNECT_TIMEOUT_MS, paywireRedis, paywireRedis as default, redactRedisUrl, type PaywireRedisOptions } from './plugin.ts'
export { RedisStorageBackend, DEFAULT_INDEXES, type RedisStorageBackendOptions } from './redis-storage-backend.ts'
export { RedisStorage, type RedisStorageOptions } from './redis-storage.ts'
export { RedisTokenStorage, type RedisTokenStorageOptions } from './redis-token-storage.ts'
