import { inspect } from 'node:util'
import { getCurrentHttpRequest } from '../requests/http-request-context.ts'
import { Logger } from './logger.ts'

/*
 * The one redaction layer every Paywire log line and every error Paywire logs goes through.
 * What never leaves it: passwords and secrets (by key, at any depth, and in URLs), the
 * arguments of failed Redis commands (payment JSON, token JSON, AUTH passwords), and token
 * hashes in URLs (bearer secrets: only their first characters remain, enough to correlate).
 * The list is in docs/security.md.
 */

/** Keys whose values are secret wherever they appear. */
export const SECRET_KEY = /secret|passw(or)?d|passwd|pwd|api[_-]?key|access[_-]?token|refresh[_-]?token|authorization|cookie|signature|cvv|cvc|card[_-]?number|^auth$|credentials?$/i

/** Query parameters carrying bearer values: Paywire's token, PayPal's approval token and payer id. */
const SECRET_QUERY = /^(paywire_token|token|payerid|payer_id|access_token|code|password|secret|client_secret|auth)$/i

/** Route kinds whose next path segment is a token hash. */
const TOKEN_PATH = /\/(capture|authorize|payout|refund|cancel|sync|notify|done)\/([A-Za-z0-9_-]{16,128})(?![A-Za-z0-9_-])/g

/** How many characters of a token hash a log line keeps. */
export const TOKEN_PREFIX_LENGTH = 6

export const REDACTED = '[redacted]'

/** The first characters of a token hash: enough to find it in a store, useless as a bearer. */
export function tokenPrefix (hash: string): string {
  return `${hash.slice(0, TOKEN_PREFIX_LENGTH)}…`
}

/**
 * A text as it may be logged: URL credentials (`redis://:pw@host`), secret query values
 * (`?password=`, `?paywire_token=`, `?token=`) and token hashes in payment paths are masked.
 */
export function redactText (text: string): string {
  if (text.length === 0) return text
  return text
    .replace(/\b([a-z][a-z\d+.-]*:\/\/[^:@/?#\s]*):[^@/?#\s]*@/gi, '$1:***@')
    .replace(/([?&;]([A-Za-z_]+)=)([^&#\s"'<>]*)/g, (match, head: string, name: string) => SECRET_QUERY.test(name) ? `${head}***` : match)
    .replace(TOKEN_PATH, (_match, kind: string, hash: string) => `/${kind}/${tokenPrefix(hash)}`)
}

/** Same as redactText, named for what it is mostly used on. */
export const redactUrl = redactText

/** Own enumerable properties that an error may carry but a log never shows. */
const ERROR_DROPPED = new Set(['args', 'options', 'config', 'request', 'requestOptions', 'headers', 'body', 'response', 'socket', 'client'])
/** Nested errors worth keeping (redacted): the cause, ioredis's last node error and batched errors. */
const NESTED_ERRORS = ['cause', 'lastNodeError', 'previousErrors', 'errors']

interface ErrorLike {
  name?: unknown
  message?: unknown
  stack?: unknown
  [key: string]: unknown
}

function isErrorLike (value: unknown): value is ErrorLike {
  return value instanceof Error || (value !== null && typeof value === 'object' && typeof (value as ErrorLike).message === 'string' && 'stack' in value)
}

/**
 * A value as it may be logged: a copy with secret keys masked, strings redacted, errors
 * replaced by their redacted copies. Cycles and depth beyond 6 are cut.
 */
export function redactValue (value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return value
  if (seen.has(value) || depth > 6) return '[…]'
  seen.add(value)
  if (isErrorLike(value)) return redactedError(value, depth, seen)
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, seen))
  if (value instanceof URL) return redactText(value.href)
  if (value instanceof Date) return value
  // Objects that say how they want to be serialized (PaypalRestConfig) are asked.
  const source = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value
  if (source === null || typeof source !== 'object') return redactValue(source, depth + 1, seen)
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(source)) {
    copy[key] = SECRET_KEY.test(key) ? REDACTED : redactValue(item, depth + 1, seen)
  }
  return copy
}

/**
 * A copy of an error that is safe to log or hand to any logger: the same class name, code,
 * status and message, its stack and causes redacted, and without what libraries attach
 * that can hold secrets (ioredis's `command.args`, HTTP clients' options and bodies).
 */
export function redactedError (error: unknown, depth = 0, seen = new WeakSet<object>()): Error {
  if (!isErrorLike(error)) return new Error(redactText(String(error)))
  seen.add(error)
  const copy = new Error(redactText(String(error.message)))
  Object.defineProperty(copy, 'name', { value: typeof error.name === 'string' ? error.name : 'Error', enumerable: false, configurable: true, writable: true })
  copy.stack = typeof error.stack === 'string' ? redactText(error.stack) : undefined
  // The constructor's name is what pino prints as `type`.
  if (error.constructor !== Error && typeof error.constructor === 'function') {
    Object.defineProperty(copy, 'constructor', { value: error.constructor, enumerable: false })
  }
  const target = copy as unknown as Record<string, unknown>
  for (const [key, item] of Object.entries(error)) {
    if (ERROR_DROPPED.has(key) || NESTED_ERRORS.includes(key)) continue
    if (SECRET_KEY.test(key)) target[key] = REDACTED
    else if (key === 'command' && item !== null && typeof item === 'object') target[key] = { name: (item as { name?: unknown }).name }
    else target[key] = redactValue(item, depth + 1, seen)
  }
  for (const key of NESTED_ERRORS) {
    const nested = (error as Record<string, unknown>)[key]
    if (nested === undefined || nested === null || seen.has(nested as object) || depth > 6) continue
    const redacted = Array.isArray(nested)
      ? nested.map((item) => redactedError(item, depth + 1, seen))
      : redactedError(nested, depth + 1, seen)
    Object.defineProperty(copy, key, { value: redacted, enumerable: key !== 'cause', configurable: true, writable: true })
  }
  return copy
}

/**
 * Removes ioredis's copy of a failed command's arguments from the error itself (keeping the
 * command's name), so the error can travel to any code and any logger. Returns the error.
 */
export function stripCommandArguments<E> (error: E): E {
  const command = (error as { command?: unknown } | null)?.command
  if (command !== null && typeof command === 'object' && 'args' in command) {
    (error as { command: unknown }).command = { name: (command as { name?: unknown }).name }
  }
  return error
}

/** pino's shape of an error (type, message, stack, own properties), for Paywire's err serializer. */
export interface SerializedError {
  type: string
  message: string
  stack: string
  [key: string]: unknown
}

export function serializeError (error: unknown): SerializedError {
  const copy = redactedError(error)
  const source = isErrorLike(error) ? error : undefined
  const type = typeof source?.constructor === 'function' && source.constructor !== Object ? source.constructor.name : copy.name
  const serialized: SerializedError = { type, message: copy.message, stack: copy.stack ?? '' }
  for (const [key, item] of Object.entries(copy)) serialized[key] = item instanceof Error ? serializeError(item) : item
  for (const key of NESTED_ERRORS) {
    const nested = (copy as unknown as Record<string, unknown>)[key]
    if (nested === undefined) continue
    serialized[key] = Array.isArray(nested) ? nested.map(serializeError) : serializeError(nested)
  }
  return serialized
}

interface RequestLike {
  method?: string
  url?: string
  host?: string
  hostname?: string
  ip?: string
  socket?: { remotePort?: number } | null
}

/** Fastify's request log fields, with the URL redacted (token hashes, secret query values). */
export function serializeRequest (request: RequestLike): Record<string, unknown> {
  return {
    method: request.method,
    url: typeof request.url === 'string' ? redactText(request.url) : request.url,
    host: request.host ?? request.hostname,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort
  }
}

/**
 * pino serializers for Paywire's loggers: errors and requests are redacted. The core plugin
 * gives them to its routes (Fastify's per-plugin `logSerializers`) and to a child of the
 * application's logger, never to the application's logger itself; an application may add
 * them to its own (`Fastify({ logger: { serializers: paywireLogSerializers } })`).
 */
export const paywireLogSerializers = Object.freeze({
  err: serializeError,
  error: serializeError,
  req: serializeRequest
})

/** pino `redact` paths for Paywire's child logger: secrets in objects logged under these keys. */
export const PAYWIRE_REDACT_PATHS: readonly string[] = Object.freeze([
  'password', '*.password', 'client_secret', '*.client_secret', 'clientSecret', '*.clientSecret',
  'authorization', '*.authorization', 'headers.authorization', 'headers.cookie', '*.headers.authorization', '*.headers.cookie'
])

type LogMethod = (objOrMsg: unknown, msg?: string) => void

interface PinoLike {
  child?: (bindings: Record<string, unknown>, options?: Record<string, unknown>) => PinoLike
  isLevelEnabled?: (level: string) => boolean
  [level: string]: unknown
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'

/** pino's level order, which a logger's `level` is read with; 'silent' is above every level. */
const LEVEL_RANK = new Map<string, number>([['trace', 10], ['debug', 20], ['info', 30], ['warn', 40], ['error', 50], ['fatal', 60], ['silent', Infinity]])

/** A method whose source is an empty body (`function noop () {}`, `() => {}`) writes nothing. */
const EMPTY_FUNCTION = /^(?:async\s+)?(?:function\b\s*)?[\w$]*\s*\([^()]*\)\s*(?:=>\s*)?\{\s*\}$/
const emptyFunctions = new WeakMap<object, boolean>()

function isEmptyFunction (fn: (...args: never[]) => unknown): boolean {
  let empty = emptyFunctions.get(fn)
  if (empty === undefined) emptyFunctions.set(fn, empty = EMPTY_FUNCTION.test(Function.prototype.toString.call(fn)))
  return empty
}

/** The method a level's lines go to: a logger without trace gets them at debug, without fatal at error. */
function methodOf (target: PinoLike, level: Level): unknown {
  return target[level] ?? target[level === 'trace' ? 'debug' : 'error']
}

/**
 * Whether a logger keeps a level's lines, asked before any line is built or redacted: its own
 * isLevelEnabled; else its `level` when that is one of pino's names ('silent' keeps none); else
 * whether the level's method does anything. The last is what Fastify's `logger: false` gives
 * (abstract-logging: empty methods, no level), so a silent application pays nothing for lines.
 */
function levelEnabled (target: PinoLike, level: Level): boolean {
  if (typeof target.isLevelEnabled === 'function') return target.isLevelEnabled(level) !== false
  const threshold = typeof target.level === 'string' ? LEVEL_RANK.get(target.level) : undefined
  if (threshold !== undefined) return (LEVEL_RANK.get(level) as number) >= threshold
  const log = methodOf(target, level)
  return typeof log === 'function' && !isEmptyFunction(log as () => unknown)
}

/**
 * Paywire's logger over the application's: every object and message redacted before it
 * reaches the target, which is a child logger with Paywire's serializers and redact paths
 * when the target is pino (Fastify's). The application's logger is not changed.
 *
 * With `followRequests` (the core plugin's logger over `app.log`), while a request runs inside
 * `runWithHttpRequest()` with a `log` (the payment routes give Fastify's `request.log`), lines
 * go to that logger instead, redacted the same way, so they carry the request id. A logger
 * the application gives with addGlobalService(Logger, ...) gets every line itself.
 */
export class RedactingLogger extends Logger {
  readonly target: PinoLike
  /** Whether lines go to the logger of the request being served (runWithHttpRequest's `log`). */
  readonly followRequests: boolean
  override trace: LogMethod
  debug: LogMethod
  info: LogMethod
  warn: LogMethod
  error: LogMethod
  fatal: LogMethod

  constructor (target: object, followRequests = false) {
    super()
    this.target = childWithSerializers(target as PinoLike)
    this.followRequests = followRequests
    const method = (level: Level): LogMethod => (objOrMsg, msg) => {
      const requestLog = followRequests ? getCurrentHttpRequest()?.log as PinoLike | undefined : undefined
      if (requestLog !== undefined) {
        // Checked on the request's own logger first: its redacting child is only made for lines it keeps.
        if (!levelEnabled(requestLog, level)) return
        return forRequest(requestLog)[level](objOrMsg, msg)
      }
      const log = methodOf(this.target, level)
      if (typeof log !== 'function') return
      if (!levelEnabled(this.target, level)) return
      if (typeof objOrMsg === 'string') return (log as LogMethod).call(this.target, redactText(objOrMsg))
      const object = isErrorLike(objOrMsg) ? { err: redactedError(objOrMsg) } : redactValue(objOrMsg)
      if (msg === undefined) (log as LogMethod).call(this.target, object)
      else (log as LogMethod).call(this.target, object, redactText(msg))
    }
    this.trace = method('trace')
    this.debug = method('debug')
    this.info = method('info')
    this.warn = method('warn')
    this.error = method('error')
    this.fatal = method('fatal')
    // What the engine asks before it builds a line (the executed-action trace, provider calls).
    this.isLevelEnabled = (level) => {
      const target = (followRequests ? getCurrentHttpRequest()?.log as PinoLike | undefined : undefined) ?? this.target
      return LEVEL_RANK.has(level) && level !== 'silent' ? levelEnabled(target, level as Level) : target.isLevelEnabled?.(level) ?? true
    }
  }

  child (bindings: Record<string, unknown>): RedactingLogger {
    return new RedactingLogger(typeof this.target.child === 'function' ? this.target.child(redactValue(bindings) as Record<string, unknown>) : this.target, this.followRequests)
  }
}

// One redacting child per request logger, made on its first kept line.
const requestLoggers = new WeakMap<object, RedactingLogger>()

function forRequest (log: PinoLike): RedactingLogger {
  let logger = requestLoggers.get(log)
  if (logger === undefined) requestLoggers.set(log, logger = new RedactingLogger(log, false))
  return logger
}

function childWithSerializers (target: PinoLike): PinoLike {
  if (target instanceof RedactingLogger) return target.target
  if (typeof target.child !== 'function') return target
  try {
    return target.child({}, { serializers: paywireLogSerializers, redact: [...PAYWIRE_REDACT_PATHS] })
  } catch {
    // A logger whose child() takes no options (not pino): the redaction above still applies.
    return target
  }
}

/**
 * Paywire's logger over any pino-compatible logger. `followRequests`: lines written while a
 * request with a `log` is served go to that logger (see RedactingLogger).
 */
export function paywireLogger (target: object, options: { followRequests?: boolean } = {}): RedactingLogger {
  if (target instanceof RedactingLogger && (options.followRequests === undefined || options.followRequests === target.followRequests)) return target
  return new RedactingLogger(target instanceof RedactingLogger ? target.target : target, options.followRequests ?? false)
}

/**
 * Keeps a connection (a pg pool, a Redis client) out of inspect() and JSON of the object holding
 * it: the connection's options carry the server's password, and an application's own client is
 * not Paywire's to change. The property stays readable; only enumeration skips it.
 */
export function hideConnection (holder: object, ...names: string[]): void {
  for (const name of names) Object.defineProperty(holder, name, { enumerable: false })
}

/**
 * Makes a connection Paywire created itself show only what `describe` says (its address without
 * the password, its state) to inspect() and JSON.stringify, at any depth.
 */
export function describeConnectionAs (connection: object, describe: () => string): void {
  Object.defineProperty(connection, inspect.custom, { value: describe, configurable: true })
  Object.defineProperty(connection, 'toJSON', { value: describe, configurable: true })
}
