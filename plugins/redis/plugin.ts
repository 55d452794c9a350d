import { once } from 'node:events'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import { errorCodes } from '../core/engine/index.ts'
import { RedisStorageBackend, type RedisStorageBackendOptions } from './redis-storage-backend.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Paywire's Redis backend: pass it as the paywire plugin's `backend` option. */
    paywireRedis: RedisStorageBackend
  }
}

export interface PaywireRedisOptions extends RedisStorageBackendOptions {
  /** Default: REDIS_URL, else redis://127.0.0.1:6379. */
  url?: string
  /** Bring your own ioredis client; it is left open on close unless closeClient is set. */
  client?: Redis
  closeClient?: boolean
  /** How long boot waits for Redis to answer (ms). Default 5000. */
  connectTimeoutMs?: number
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000

/** The URL as it may appear in logs and errors: without its password (in the user part or the query). */
export function redactRedisUrl (url: string): string {
  return url
    .replace(/^((?:[a-z][a-z\d+.-]*:)?\/\/|)([^:@/?#]*):[^/?#]*@/i, '$1$2:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
}

function describeClient (client: Redis): string {
  const { path, host, port } = client.options
  return path ?? `redis://${host}:${port}`
}

/**
 * Resolves once the client is ready (connecting a lazy one). The first connection error,
 * or no answer in time, fails boot: ioredis would otherwise retry forever and let the
 * first payment fail instead.
 */
async function untilReady (client: Redis, label: string, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return
  // once() also rejects on the client's first 'error' event.
  const ready = once(client, 'ready', { signal: AbortSignal.timeout(timeoutMs) })
  // connect() rejects as well when the connection closes; the 'error' event already said why.
  if (client.status === 'wait') client.connect().catch(() => {})
  try {
    await ready
  } catch (error) {
    const reason = (error as Error).name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (error as Error).message
    throw new errorCodes.PAYWIRE_ERR_REDIS_UNREACHABLE(label, reason, { cause: error })
  }
}

function validateOptions (options: PaywireRedisOptions): void {
  const checks: Array<[keyof PaywireRedisOptions, (value: unknown) => boolean, string]> = [
    ['url', (value) => typeof value === 'string' && value !== '', 'must be a redis:// or rediss:// URL'],
    ['keyPrefix', (value) => typeof value === 'string', 'must be a string (e.g. "paywire:")'],
    ['connectTimeoutMs', (value) => Number.isInteger(value) && (value as number) > 0, 'must be a whole number of milliseconds above 0'],
    ['client', (value) => typeof (value as Redis | null)?.defineCommand === 'function', 'must be an ioredis client'],
    ['closeClient', (value) => typeof value === 'boolean', 'must be a boolean']
  ]
  for (const [option, valid, problem] of checks) {
    if (options[option] !== undefined && !valid(options[option])) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
  }
}

const paywireRedisPlugin: FastifyPluginAsync<PaywireRedisOptions> = async function paywireRedis (app, options) {
  validateOptions(options)
  const owned = options.client === undefined
  const url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  // RESP2 is pinned: ioredis 6 defaults to RESP3, which older servers and proxies refuse.
  // Auto-pipelining sends the commands issued in one tick (a payment and its tokens, the saves
  // and the token invalidation after a capture) as one write: one round trip.
  const client = options.client ?? new Redis(url, { lazyConnect: true, protocol: 2, maxRetriesPerRequest: 3, enableAutoPipelining: true })
  const label = owned ? redactRedisUrl(url) : describeClient(client)
  const backend = new RedisStorageBackend(client, options)
  try {
    await untilReady(client, label, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS)
  } catch (error) {
    if (owned) client.disconnect()
    throw error
  }

  // After boot, ioredis reconnects by itself: connection errors are logged, never thrown.
  const logError = function paywireRedisError (error: Error): void {
    app.log.error({ err: error, redis: label }, 'Redis connection error')
  }
  client.on('error', logError)
  app.decorate('paywireRedis', backend)
  app.addHook('onClose', async function paywireRedisOnClose () {
    client.off('error', logError)
    // QUIT lets pending replies arrive; a connection its owner already closed is just dropped.
    if (owned || options.closeClient === true) await client.quit().catch(() => client.disconnect())
  })
}

/** Redis for Paywire's tokens and payments (ioredis). Register it before the paywire plugin. */
export const paywireRedis = fp(paywireRedisPlugin, { name: 'paywire-redis', fastify: '5.x' })
export default paywireRedis
