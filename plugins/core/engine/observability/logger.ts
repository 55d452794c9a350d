type LogFn = (objOrMsg: unknown, msg?: string) => void

/**
 * What a logger given to Paywire implements (`builder.addGlobalService(Logger, myLogger)`):
 * pino's method shape, so Fastify's `app.log` and `request.log` fit as they are. Each method
 * takes a message, or an object of fields and a message. Also the service id under which
 * gateways find the logger in their container.
 *
 * Paywire never calls it directly: every line goes through the redaction layer (redact.ts)
 * first, and inside `runWithHttpRequest()` with a `log`, to that request's logger instead
 * (under Fastify, `request.log`, so lines carry the request id). See docs/observability.md.
 */
export abstract class Logger {
  // Methods, not properties: a subclass may define them either way (`debug () {}` or
  // `debug = () => {}`), and a plain object with these four fits too.
  abstract debug (objOrMsg: unknown, msg?: string): void
  abstract info (objOrMsg: unknown, msg?: string): void
  abstract warn (objOrMsg: unknown, msg?: string): void
  abstract error (objOrMsg: unknown, msg?: string): void
  /** The executed actions; a logger without it gets them at debug. */
  trace?: LogFn
  /**
   * When present and false for a level, Paywire skips building that level's lines. Without it,
   * a pino-named `level` property decides, else whether the level's method is an empty function.
   */
  isLevelEnabled?: (level: string) => boolean
}

const silent: LogFn = () => {}

/** The default when the application registers no logger. */
export class NullLogger extends Logger {
  override trace = silent
  debug = silent
  info = silent
  warn = silent
  error = silent
  override isLevelEnabled = (): boolean => false
}
