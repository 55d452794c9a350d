type LogFn = (objOrMsg: unknown, msg?: string) => void

/**
 * A pino-compatible logger (Fastify's app.log fits). Also the service id under which
 * gateways find the logger in their container.
 */
export abstract class Logger {
  abstract debug: LogFn
  abstract info: LogFn
  abstract warn: LogFn
  abstract error: LogFn
}

const silent: LogFn = () => {}

/** The default when the application registers no logger. */
export class NullLogger extends Logger {
  debug = silent
  info = silent
  warn = silent
  error = silent
}
