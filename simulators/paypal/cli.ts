import type { FastifyServerOptions } from 'fastify'
import { buildPaypalSimulator } from './index.ts'
import type { PaypalSimulator } from './index.ts'
import { DEFAULT_SIMULATOR_CLIENT } from './runtime/store.ts'

export interface SimulatorCliEnvironment {
  env: Record<string, string | undefined>
  log: (line: string) => void
  /** Where SIGINT/SIGTERM arrive; `process` in the script. */
  signals: { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => unknown }
  /** A port given on the command line (`--port`), over PAYPAL_SIMULATOR_PORT. */
  port?: string
}

/** A setting the CLI refuses (a bad value, a busy port): one line saying what to change, and its exit code. */
export class SimulatorSettingError extends Error {
  readonly exitCode: number

  constructor (message: string, exitCode = 2) {
    super(message)
    this.exitCode = exitCode
  }
}

export const DEFAULT_PORT = 8089
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

function port (name: string, value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT
  const number = Number(value)
  if (!/^\d+$/.test(value) || number > 65535) throw new SimulatorSettingError(`${name} must be a TCP port from 0 (any free port) to 65535, got "${value}"`)
  return number
}

/**
 * `npm run paypal-simulator`: listens on 127.0.0.1, prints how to point a gateway at it (never the
 * client secret) and closes cleanly on SIGINT/SIGTERM.
 */
export async function runPaypalSimulatorCli ({ env, log, signals, port: portFlag }: SimulatorCliEnvironment): Promise<PaypalSimulator> {
  const clientId = env.PAYPAL_SIMULATOR_CLIENT_ID || DEFAULT_SIMULATOR_CLIENT.clientId
  const clientSecret = env.PAYPAL_SIMULATOR_CLIENT_SECRET || DEFAULT_SIMULATOR_CLIENT.clientSecret
  const level = env.PAYPAL_SIMULATOR_LOG_LEVEL || 'info'
  if (!LOG_LEVELS.includes(level)) throw new SimulatorSettingError(`PAYPAL_SIMULATOR_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${level}"`)
  const listenPort = portFlag === undefined ? port('PAYPAL_SIMULATOR_PORT', env.PAYPAL_SIMULATOR_PORT) : port('--port', portFlag)
  const logger: FastifyServerOptions['logger'] = { level }
  const app = buildPaypalSimulator({ clients: [{ clientId, clientSecret }], logger })
  try {
    await app.listen({ port: listenPort, host: '127.0.0.1' })
  } catch (error) {
    await app.close()
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error
    throw new SimulatorSettingError(`port ${listenPort} on 127.0.0.1 is in use: choose another with --port or PAYPAL_SIMULATOR_PORT (0 for any free port)`, 1)
  }
  const base = app.listeningOrigin

  const secretSource = env.PAYPAL_SIMULATOR_CLIENT_SECRET ? 'PAYPAL_SIMULATOR_CLIENT_SECRET' : 'the built-in default, see the simulator README'
  log(`PayPal simulator listening on ${base} (Payments v1 for paypal_rest, Orders v2 and Payments v2 for paypal_checkout)`)
  log(`Client id: ${clientId} (secret: ${secretSource})`)
  log(`Point either PayPal gateway at it with the option config: { 'service.EndPoint': '${base}' }`)
  log(`Buyer approval pages are served at ${base}/cgi-bin/webscr (v1) and ${base}/checkoutnow (v2)`)

  const shutdown = (): void => {
    log('PayPal simulator shutting down')
    app.close().catch((error: unknown) => app.log.error({ err: error }, 'PayPal simulator did not close cleanly'))
  }
  signals.once('SIGINT', shutdown)
  signals.once('SIGTERM', shutdown)
  return app
}
