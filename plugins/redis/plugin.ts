import { once } from 'node:events'
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import { Cluster, Redis } from 'ioredis'
import { describeConnectionAs, errorCodes, paywireLogger, redactedError, stripCommandArguments } from '../core/engine/index.ts'
import { refuseUnknownOptions } from '../core/engine/suggest.ts'
import { durabilityProblem, readPersistence } from './durability.ts'
import { PAYWIRE_ERR_REDIS_NOT_DURABLE, PAYWIRE_WARN_REDIS_NOT_DURABLE } from './errors.ts'
import type { RedisClient } from './keys.ts'
import { RedisStorageBackend, type RedisStorageBackendOptions } from './redis-storage-backend.ts'
import { PAYWIRE_ERR_REDIS_ALREADY_REGISTERED, PAYWIRE_ERR_REDIS_UNREACHABLE } from './errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Paywire's Redis backend: pass it as the paywire plugin's `backend` option. */
    paywireRedis: RedisStorageBackend
  }
}

export interface PaywireRedisOptions extends RedisStorageBackendOptions {
  /** Default: REDIS_URL, else redis://127.0.0.1:6379. */
  url?: string
  /**
   * Bring your own ioredis client (a Redis or a Cluster); it is left open on close unless
   * closeClient is set. Paywire makes it drop, rather than send after a reconnection, a
   * command that already failed its caller (its commandTimeout ran out).
   */
  client?: Redis | Cluster
  closeClient?: boolean
  /**
   * The nodes of a Redis Cluster (some or all: the rest are discovered). The plugin opens an
   * ioredis Cluster client instead of a single connection; `url` is then ignored.
   */
  cluster?: Array<{ host: string, port: number }>
  /**
   * Fail boot when Redis keeps payments without AOF persistence (a restart would lose them).
   * Default false: a coded warning (PAYWIRE_WARN_REDIS_NOT_DURABLE) is logged instead.
   */
  requireDurability?: boolean
  /** How long boot waits for Redis to answer (ms). Default 5000. */
  connectTimeoutMs?: number
  /**
   * How long one command may take, queued while reconnecting included (ms), before the
   * request fails with PAYWIRE_ERR_STORAGE_UNAVAILABLE (503). Default 2000. Only for the
   * client the plugin opens; give your own client ioredis' `commandTimeout`.
   */
  commandTimeoutMs?: number
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 5000
export const DEFAULT_COMMAND_TIMEOUT_MS = 2000

/** The URL as it may appear in logs and errors: without its password (in the user part or the query). */
export function redactRedisUrl (url: string): string {
  return url
    .replace(/^((?:[a-z][a-z\d+.-]*:)?\/\/|)([^:@/?#]*):[^/?#]*@/i, '$1$2:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
}

/**
 * Keeps a client the plugin made (a connection or a Cluster) from ever showing its password
 * or the data it writes: ioredis copies a failed command's arguments onto the error
 * (`command.args`: AUTH's password, a payment's JSON, a token's), so they are removed before
 * any caller sees the error; inspect() and JSON show the status and the redacted URL; the password
 * options are not enumerable, so JSON and inspect() of the options skip them.
 */
function guardOwnClient (client: RedisClient, label: string): void {
  const target = client as Redis
  const sendCommand = target.sendCommand
  type Command = Parameters<typeof sendCommand>[0]
  target.sendCommand = function paywireSendCommand (this: Redis, command: Command, ...rest: unknown[]) {
    const reject = command.reject
    command.reject = (error: Error) => reject(stripCommandArguments(error))
    return (sendCommand as (...args: unknown[]) => unknown).call(this, command, ...rest)
  } as typeof sendCommand
  const options = client.options as Record<string, unknown> & { redisOptions?: Record<string, unknown> }
  for (const holder of [options, options.redisOptions]) {
    for (const option of ['password', 'sentinelPassword']) {
      if (holder !== undefined && option in holder) Object.defineProperty(holder, option, { enumerable: false })
    }
  }
  // ioredis keeps the password in more places than its options (condition.auth while connected).
  describeConnectionAs(client, () => `${client.isCluster ? 'Cluster' : 'Redis'} { url: '${label}', status: '${client.status}' }`)
}

function describeNodes (nodes: Array<{ host: string, port: number }>): string {
  return `redis-cluster://${nodes.map((node) => `${node.host}:${node.port}`).join(',')}`
}

function describeClient (client: RedisClient): string {
  if (client.isCluster) return describeNodes((client as Cluster).nodes().map((node) => ({ host: node.options.host ?? '', port: node.options.port ?? 0 })))
  const { path, host, port } = (client as Redis).options
  return path ?? `redis://${host}:${port}`
}

/**
 * Resolves once the client is ready (connecting a lazy one). The first connection error,
 * or no answer in time, fails boot: ioredis would otherwise retry forever and let the
 * first payment fail instead.
 */
async function untilReady (client: RedisClient, label: string, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return
  // once() also rejects on the client's first 'error' event.
  const ready = once(client, 'ready', { signal: AbortSignal.timeout(timeoutMs) })
  // connect() rejects as well when the connection closes; the 'error' event already said why.
  if (client.status === 'wait') client.connect().catch(() => {})
  try {
    await ready
  } catch (error) {
    const reason = (error as Error).name === 'AbortError' ? `no answer within ${timeoutMs} ms` : (error as Error).message
    // The cause is a redacted copy: a failed AUTH carries the password in its command.
    throw new PAYWIRE_ERR_REDIS_UNREACHABLE(label, reason, { cause: redactedError(error) })
  }
}

/** The closing phase's listener: the client is going away, its connection errors are expected. */
function ignoreError (): void {}

const OPTION_NAMES = ['url', 'client', 'closeClient', 'cluster', 'requireDurability', 'connectTimeoutMs', 'commandTimeoutMs', 'keyPrefix', 'tokenTtl', 'indexes']

function validateOptions (options: PaywireRedisOptions): void {
  // A misspelt option (keyprefix) would otherwise be dropped: the keys would land under 'paywire:'.
  refuseUnknownOptions('paywire-redis', options, OPTION_NAMES)
  const checks: Array<[keyof PaywireRedisOptions, (value: unknown) => boolean, string]> = [
    ['url', (value) => typeof value === 'string' && /^(rediss?:\/\/|\/)/i.test(value), 'must be a redis:// or rediss:// URL (or a socket path)'],
    ['keyPrefix', (value) => typeof value === 'string', 'must be a string (e.g. "paywire:")'],
    ['connectTimeoutMs', (value) => Number.isInteger(value) && (value as number) > 0, 'must be a whole number of milliseconds above 0'],
    ['commandTimeoutMs', (value) => Number.isInteger(value) && (value as number) > 0, 'must be a whole number of milliseconds above 0'],
    ['client', (value) => typeof (value as Redis | null)?.defineCommand === 'function', 'must be an ioredis client (Redis or Cluster)'],
    ['closeClient', (value) => typeof value === 'boolean', 'must be a boolean'],
    ['cluster', (value) => Array.isArray(value) && value.length > 0 && value.every((node) => typeof node?.host === 'string' && Number.isInteger(node?.port)),
      'must be a list of cluster nodes, e.g. [{ host: "10.0.0.1", port: 6379 }]'],
    ['requireDurability', (value) => typeof value === 'boolean', 'must be a boolean']
  ]
  for (const [option, valid, problem] of checks) {
    if (options[option] !== undefined && !valid(options[option])) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
  }
}

const paywireRedisPlugin: FastifyPluginAsync<PaywireRedisOptions> = async function paywireRedis (app, options) {
  // Checked before a client exists: a second registration would open a connection and then fail to decorate.
  if (app.hasDecorator('paywireRedis')) throw new PAYWIRE_ERR_REDIS_ALREADY_REGISTERED()
  validateOptions(options)
  const owned = options.client === undefined
  const url = options.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  // RESP2 is pinned: ioredis 6 defaults to RESP3, which older servers and proxies refuse.
  // Auto-pipelining sends the commands issued in one tick (a payment and its tokens) as one
  // write: one round trip. The command timeout bounds every call, also while ioredis
  // reconnects, so a silent or dead Redis answers a coded 503 instead of hanging a request.
  const connection = {
    protocol: 2 as const,
    maxRetriesPerRequest: 3,
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS
  }
  const client: RedisClient = options.client ?? (options.cluster === undefined
    ? new Redis(url, { ...connection, lazyConnect: true, enableAutoPipelining: true })
    // On a Cluster, auto-pipelining batches per node: a request's commands to one slot still leave together.
    : new Cluster(options.cluster, { lazyConnect: true, enableAutoPipelining: true, redisOptions: connection }))
  const label = !owned ? describeClient(client) : options.cluster === undefined ? redactRedisUrl(url) : describeNodes(options.cluster)
  if (owned) guardOwnClient(client, label)
  const backend = new RedisStorageBackend(client, options)
  try {
    await untilReady(client, label, options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS)
  } catch (error) {
    if (owned) client.disconnect()
    throw error
  }

  // After boot, ioredis reconnects by itself: connection errors are logged (redacted), never thrown.
  const log = paywireLogger(app.log)
  const logError = function paywireRedisError (error: Error): void {
    log.error({ err: error, redis: label }, 'Redis connection error')
  }
  client.on('error', logError)
  app.decorate('paywireRedis', backend)
  // Once every plugin is registered: only then is it known whether payments live here (the
  // core plugin asked for storages) or only tokens.
  app.addHook('onReady', async function paywireRedisDurability () {
    if (!backend.storesRecords) return
    const persistence = await readPersistence(client)
    if (persistence === null) {
      app.log.info({ redis: label }, 'Redis persistence could not be read (CONFIG is not allowed): make sure the server keeps an append-only file')
      return
    }
    const problem = durabilityProblem(persistence)
    if (problem === undefined) return
    if (options.requireDurability === true) throw new PAYWIRE_ERR_REDIS_NOT_DURABLE(label, problem)
    app.log.warn({ code: PAYWIRE_WARN_REDIS_NOT_DURABLE, redis: label, problem },
      `Redis keeps payments but would lose them on a restart (${problem}). Turn on appendonly. See docs/durability.md.`)
  })
  app.addHook('onClose', async function paywireRedisOnClose () {
    client.off('error', logError)
    // A client the application passed in is the application's to close (unless it asked otherwise).
    if (!owned && options.closeClient !== true) return
    // Until the client has ended it may still fail to reconnect: without a listener ioredis
    // prints each failure to stderr as an "Unhandled error event".
    client.on('error', ignoreError)
    // QUIT lets pending replies arrive, bounded by the command timeout. Against a server that
    // is gone, a QUIT would wait in the offline queue for a reconnect that never comes: drop it.
    if (client.status === 'ready') await client.quit().catch(() => {})
    client.disconnect()
  })
}

/** Redis for Paywire's tokens and payments (ioredis). Register it before the paywire plugin. */
export const paywireRedis = fp(paywireRedisPlugin, { name: 'paywire-redis', fastify: '5.x' })
export default paywireRedis
