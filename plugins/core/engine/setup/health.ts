import type { StorageBackend } from '../commit/storage-backend.ts'
import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import { DEAD_EVENTS_KEPT, type Outbox } from '../events/outbox.ts'
import { refuseUnknownOptions } from '../suggest.ts'

/*
 * Paywire.health(): can this instance take payments? Each check is bounded by a timeout, so
 * a Redis that stopped answering (ioredis queues commands while it reconnects) reports
 * `down` in about timeoutMs instead of holding a readiness probe until it gives up.
 */

export interface HealthOptions {
  /** How long each check may take (ms), default 1000; a check still waiting then is `down` with error "timeout". */
  timeoutMs?: number
  /** The oldest event due for longer than this (ms, default 60000) makes the report `degraded`: delivery is stuck. */
  maxEventLagMs?: number
}

export const HEALTH_OPTION_NAMES = ['timeoutMs', 'maxEventLagMs']
export const DEFAULT_HEALTH_TIMEOUT_MS = 1000
export const DEFAULT_MAX_EVENT_LAG_MS = 60_000
/** How many waiting payments the backlog counts at most: the check stays one bounded read. */
export const BACKLOG_COUNTED = 1000

export type HealthStatus = 'ok' | 'degraded' | 'down'

export interface StorageHealth {
  /** `unchecked`: the backend has no ping() (a custom one); it does not lower the overall status. */
  status: 'ok' | 'down' | 'unchecked'
  /** The backend's class name (MemoryStorageBackend, RedisStorageBackend, PostgresStorageBackend). */
  backend: string
  latencyMs?: number
  /** Why it is down: "timeout", or the error's code (ECONNREFUSED, PAYWIRE_ERR_STORAGE_UNAVAILABLE). Never its message. */
  error?: string
}

export interface EventsHealth {
  status: 'ok' | 'degraded' | 'down'
  /** The dispatcher is started and not closed (the core plugin starts it once the application is ready). */
  delivering: boolean
  /** Payments with an event due now, counted up to BACKLOG_COUNTED. */
  backlog: number
  /** How long the oldest due event has waited (ms); 0 when none waits. */
  oldestDueMs: number
  /** Events that failed every attempt (the outbox keeps the newest DEAD_EVENTS_KEPT): see paywire.events.dead(). */
  dead: number
  latencyMs?: number
  error?: string
}

/** JSON-able, and free of secrets: names, counts, times and error codes only. */
export interface HealthReport {
  status: HealthStatus
  checkedAt: string
  checks: {
    storage: StorageHealth
    events: EventsHealth
  }
}

export interface HealthSubjects {
  backend: StorageBackend
  outbox: Outbox
  delivering: () => boolean
}

const TIMED_OUT = Symbol('timeout')

/** The check's result, or TIMED_OUT after `ms`; a late rejection is swallowed (the report already said down). */
async function within<T> (ms: number, check: () => Promise<T>): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined
  const pending = check()
  pending.catch(() => {})
  try {
    return await Promise.race([pending, new Promise<typeof TIMED_OUT>((resolve) => { timer = setTimeout(resolve, ms, TIMED_OUT) })])
  } finally {
    clearTimeout(timer)
  }
}

/** An error's code when it is one (ECONNREFUSED, PAYWIRE_ERR_...): messages may carry a host or a user, codes do not. */
function errorCode (error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : 'error'
}

async function timed<T> (ms: number, check: () => Promise<T>): Promise<{ value?: T, latencyMs: number, error?: string }> {
  const started = performance.now()
  try {
    const value = await within(ms, check)
    const latencyMs = Math.round(performance.now() - started)
    return value === TIMED_OUT ? { latencyMs, error: 'timeout' } : { value, latencyMs }
  } catch (error) {
    return { latencyMs: Math.round(performance.now() - started), error: errorCode(error) }
  }
}

export function healthOptions (options: HealthOptions = {}, prefix = 'health.'): Required<HealthOptions> {
  refuseUnknownOptions('paywire', options, HEALTH_OPTION_NAMES, prefix)
  for (const name of HEALTH_OPTION_NAMES as Array<keyof HealthOptions>) {
    const value = options[name]
    if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new PAYWIRE_ERR_INVALID_OPTION(`${prefix}${name}`, 'must be a number of milliseconds above 0')
    }
  }
  return { timeoutMs: options.timeoutMs ?? DEFAULT_HEALTH_TIMEOUT_MS, maxEventLagMs: options.maxEventLagMs ?? DEFAULT_MAX_EVENT_LAG_MS }
}

/**
 * The ping in flight per backend: probes arriving while a silent server holds one wait for
 * it, instead of each queueing a command or a pool connection of its own.
 */
const pings = new WeakMap<StorageBackend, Promise<void>>()

function ping (backend: StorageBackend & { ping: () => Promise<void> }): Promise<void> {
  let pending = pings.get(backend)
  if (pending === undefined) {
    pending = backend.ping().finally(() => { pings.delete(backend) })
    pings.set(backend, pending)
  }
  return pending
}

async function storageHealth (backend: StorageBackend, timeoutMs: number): Promise<StorageHealth> {
  const name = backend.constructor.name
  if (backend.ping === undefined) return { status: 'unchecked', backend: name }
  const { latencyMs, error } = await timed(timeoutMs, async () => { await ping(backend as StorageBackend & { ping: () => Promise<void> }) })
  return error === undefined ? { status: 'ok', backend: name, latencyMs } : { status: 'down', backend: name, latencyMs, error }
}

async function eventsHealth (subjects: HealthSubjects, options: Required<HealthOptions>): Promise<EventsHealth> {
  const { outbox } = subjects
  const delivering = subjects.delivering()
  const { value, latencyMs, error } = await timed(options.timeoutMs, async () => {
    const now = Date.now()
    return await Promise.all([
      outbox.due(now, BACKLOG_COUNTED).then((partitions) => partitions.length),
      outbox.nextDueAt().then((next) => next === null ? 0 : Math.max(0, now - next)),
      outbox.deadCount?.() ?? outbox.dead(DEAD_EVENTS_KEPT).then((dead) => dead.length)
    ])
  })
  if (value === undefined) return { status: 'down', delivering, backlog: 0, oldestDueMs: 0, dead: 0, latencyMs, error }
  const [backlog, oldestDueMs, dead] = value
  const status = delivering && oldestDueMs <= options.maxEventLagMs ? 'ok' : 'degraded'
  return { status, delivering, backlog, oldestDueMs, dead, latencyMs }
}

/** Runs every check at once, each bounded by timeoutMs. */
export async function checkHealth (subjects: HealthSubjects, options: HealthOptions = {}): Promise<HealthReport> {
  const resolved = healthOptions(options)
  const [storage, events] = await Promise.all([storageHealth(subjects.backend, resolved.timeoutMs), eventsHealth(subjects, resolved)])
  const status: HealthStatus = storage.status === 'down' || events.status === 'down'
    ? 'down'
    : events.status === 'degraded' ? 'degraded' : 'ok'
  return { status, checkedAt: new Date().toISOString(), checks: { storage, events } }
}
