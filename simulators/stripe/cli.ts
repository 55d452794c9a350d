import type { FastifyServerOptions } from 'fastify'
import { buildStripeSimulator, DEFAULT_API_KEY } from './index.ts'
import type { StripeSimulator } from './types.ts'

export interface StripeSimulatorCliEnvironment {
  env: Record<string, string | undefined>
  log: (line: string) => void
  /** Where SIGINT/SIGTERM arrive; `process` in the bin. */
  signals: { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => unknown }
}

/** A setting the CLI refuses: one line for stderr, and its exit code (2 for a bad value, 1 for a busy port). */
export class CliSettingError extends Error {
  readonly exitCode: number

  constructor (message: string, exitCode = 2) {
    super(message)
    this.exitCode = exitCode
  }
}

export const DEFAULT_PORT = 12111
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

interface Settings {
  port: number
  apiKey: string
  webhookUrl: string | undefined
  webhookSecret: string | undefined
  logLevel: string
}

export function readSettings (env: Record<string, string | undefined>): Settings {
  const portText = env.STRIPE_SIMULATOR_PORT
  const port = portText === undefined || portText === '' ? DEFAULT_PORT : Number(portText)
  if (!/^\d*$/.test(portText ?? '') || port > 65535) throw new CliSettingError(`STRIPE_SIMULATOR_PORT must be a TCP port (0 to 65535), got "${portText as string}"`)
  const apiKey = env.STRIPE_SIMULATOR_SECRET_KEY || DEFAULT_API_KEY
  if (!/^sk_test_\w+$/.test(apiKey)) throw new CliSettingError('STRIPE_SIMULATOR_SECRET_KEY must be a test secret key (sk_test_…)')
  const webhookUrl = env.STRIPE_SIMULATOR_WEBHOOK_URL || undefined
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl)) throw new CliSettingError(`STRIPE_SIMULATOR_WEBHOOK_URL must be an http(s) URL, got "${webhookUrl}"`)
  const webhookSecret = env.STRIPE_SIMULATOR_WEBHOOK_SECRET || undefined
  if (webhookSecret !== undefined && !/^whsec_\w+$/.test(webhookSecret)) throw new CliSettingError('STRIPE_SIMULATOR_WEBHOOK_SECRET must be a webhook signing secret (whsec_…)')
  if (webhookSecret !== undefined && webhookUrl === undefined) throw new CliSettingError('STRIPE_SIMULATOR_WEBHOOK_SECRET needs STRIPE_SIMULATOR_WEBHOOK_URL')
  const logLevel = env.STRIPE_SIMULATOR_LOG_LEVEL || 'info'
  if (!LOG_LEVELS.includes(logLevel)) throw new CliSettingError(`STRIPE_SIMULATOR_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`)
  return { port, apiKey, webhookUrl, webhookSecret, logLevel }
}

/**
 * `paywire stripe-simulator`: listens on 127.0.0.1, prints where to point a Stripe client and
 * its webhook secret (never the API key unless it is the built-in default), closes on SIGINT/SIGTERM.
 */
export async function runStripeSimulatorCli ({ env, log, signals }: StripeSimulatorCliEnvironment): Promise<StripeSimulator> {
  const settings = readSettings(env)
  const logger: FastifyServerOptions['logger'] = { level: settings.logLevel }
  const app = buildStripeSimulator({
    apiKeys: [settings.apiKey],
    logger,
    webhooks: settings.webhookUrl === undefined ? [] : [{ url: settings.webhookUrl, ...(settings.webhookSecret === undefined ? {} : { secret: settings.webhookSecret }) }]
  })
  try {
    await app.listen({ port: settings.port, host: '127.0.0.1' })
  } catch (error) {
    await app.close()
    if ((error as { code?: string }).code === 'EADDRINUSE') throw new CliSettingError(`port ${settings.port} on 127.0.0.1 is in use: choose another with --port or STRIPE_SIMULATOR_PORT (0 for any free port)`, 1)
    throw new CliSettingError(`cannot listen on 127.0.0.1:${settings.port}: ${(error as Error).message}`, 1)
  }
  const { origin, port } = { origin: app.listeningOrigin, port: new URL(app.listeningOrigin).port }
  log(`Stripe simulator listening on ${origin}`)
  log(`Point a Stripe client at it: new Stripe(key, { host: '127.0.0.1', port: ${port}, protocol: 'http' })`)
  log(`Secret key: ${env.STRIPE_SIMULATOR_SECRET_KEY ? 'STRIPE_SIMULATOR_SECRET_KEY' : DEFAULT_API_KEY}`)
  for (const endpoint of app.simulator.webhooks.endpoints()) {
    log(`Webhooks go to ${endpoint.url}, signed with ${settings.webhookSecret === undefined ? endpoint.secret : 'STRIPE_SIMULATOR_WEBHOOK_SECRET'}`)
  }
  const shutdown = (): void => {
    log('Stripe simulator shutting down')
    app.close().catch((error: unknown) => app.log.error({ err: error }, 'Stripe simulator did not close cleanly'))
  }
  signals.once('SIGINT', shutdown)
  signals.once('SIGTERM', shutdown)
  return app
}
