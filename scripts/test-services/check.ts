import pg from 'pg'
import { Redis } from 'ioredis'

/*
 * The test suite runs against a real Redis and a real PostgreSQL. Without them, every Redis
 * test retries its connection until tap's timeout, and the run ends in minutes of
 * ECONNREFUSED and "no tests found". `npm test` checks both first, in about a second.
 */

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379'
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test'

export interface ServiceUrls {
  redisUrl: string
  databaseUrl: string
  /** How long each connection may take. */
  timeoutMs?: number
}

/** What is missing, as sentences telling what to start; empty when both answer. */
export async function checkTestServices (urls: ServiceUrls): Promise<string[]> {
  const timeoutMs = urls.timeoutMs ?? 2000
  const [redis, postgres] = await Promise.all([
    pingRedis(urls.redisUrl, timeoutMs),
    pingPostgres(urls.databaseUrl, timeoutMs)
  ])
  const problems: string[] = []
  if (redis !== undefined) problems.push(`start Redis on REDIS_URL (${redactUrl(urls.redisUrl)}): ${redis}`)
  if (postgres !== undefined) problems.push(`start PostgreSQL on DATABASE_URL (${redactUrl(urls.databaseUrl)}): ${postgres}`)
  return problems
}

async function pingRedis (url: string, timeoutMs: number): Promise<string | undefined> {
  // No retries and no offline queue: one refused connection is the answer.
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false })
  // connect() rejects with "Connection is closed."; the socket's own error says why.
  let socketError: unknown
  redis.on('error', (error) => { socketError ??= error })
  try {
    await redis.connect()
    await redis.ping()
    return undefined
  } catch (error) {
    return describe(socketError ?? error)
  } finally {
    redis.disconnect()
  }
}

async function pingPostgres (url: string, timeoutMs: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return describe(error)
  } finally {
    await client.end().catch(() => {})
  }
}

function describe (error: unknown): string {
  const { code, message } = error as { code?: unknown, message?: unknown }
  return typeof code === 'string' ? `${code} ${String(message)}` : String(message)
}

/** A URL's password never reaches the output. */
function redactUrl (url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
}

/** `tsx scripts/test-services/check.ts`: exits with 1 and says what to start when a service is missing. */
export async function main (env: NodeJS.ProcessEnv, err: (text: string) => void): Promise<number> {
  const problems = await checkTestServices({
    redisUrl: env.REDIS_URL ?? DEFAULT_REDIS_URL,
    databaseUrl: env.DATABASE_URL ?? DEFAULT_DATABASE_URL
  })
  if (problems.length === 0) return 0
  err(`The tests need a Redis and a PostgreSQL:\n${problems.map((problem) => `  - ${problem}\n`).join('')}` +
    'Set REDIS_URL and DATABASE_URL to reach running servers (see CONTRIBUTING.md), then run npm test again.\n')
  return 1
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = await main(process.env, (text) => process.stderr.write(text))
}
