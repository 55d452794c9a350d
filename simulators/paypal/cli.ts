import type { FastifyServerOptions } from 'fastify'
import { buildPaypalSimulator } from './index.ts'
import type { PaypalSimulator } from './index.ts'
import { DEFAULT_SIMULATOR_CLIENT } from './runtime/store.ts'

export interface SimulatorCliEnvironment {
  env: Record<string, string | undefined>
  log: (line: string) => void
  /** Where SIGINT/SIGTERM arrive; `process` in the script. */
  signals: { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => unknown }
}

const DEFAULT_PORT = 8089

function port (value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT
  const number = Number(value)
  if (!/^\d+$/.test(value) || number > 65535) throw new TypeError(`PAYPAL_SIMULATOR_PORT must be a TCP port, got "${value}"`)
  return number
}

/**
 * `npm run paypal-simulator`: listens on 127.0.0.1, prints how to point a gateway at it (never the
 * client secret) and closes cleanly on SIGINT/SIGTERM.
 */
export async function runPaypalSimulatorCli ({ env, log, signals }: SimulatorCliEnvironment): Promise<PaypalSimulator> {
  const clientId = env.PAYPAL_SIMULATOR_CLIENT_ID || DEFAULT_SIMULATOR_CLIENT.clientId
  const clientSecret = env.PAYPAL_SIMULATOR_CLIENT_SECRET || DEFAULT_SIMULATOR_CLIENT.clientSecret
  const logger: FastifyServerOptions['logger'] = { level: env.PAYPAL_SIMULATOR_LOG_LEVEL || 'info' }
  const app = buildPaypalSimulator({ clients: [{ clientId, clientSecret }], logger })
  await app.listen({ port: port(env.PAYPAL_SIMULATOR_PORT), host: '127.0.0.1' })
  const base = app.listeningOrigin

  const secretSource = env.PAYPAL_SIMULATOR_CLIENT_SECRET ? 'PAYPAL_SIMULATOR_CLIENT_SECRET' : 'the built-in default, see the simulator README'
  log(`PayPal REST simulator (Payments v1) listening on ${base}`)
  log(`Client id: ${clientId} (secret: ${secretSource})`)
  log(`Point the paypal_rest gateway at it with service.EndPoint = ${base}`)
  log(`Buyer approval pages are served at ${base}/cgi-bin/webscr`)

  const shutdown = (): void => {
    log('PayPal REST simulator shutting down')
    app.close().catch((error: unknown) => app.log.error({ err: error }, 'PayPal simulator did not close cleanly'))
  }
  signals.once('SIGINT', shutdown)
  signals.once('SIGTERM', shutdown)
  return app
}
