/*
 * npm start: read the environment, build the shop, listen, close on SIGINT/SIGTERM; and when
 * it cannot start, one line on stderr saying what to change, exit code 1.
 */
import type { FastifyInstance } from 'fastify'
import { redactRedisUrl } from 'paywire/redis'
import { DemoConfigError, readEnvironment, readStripeEnvironment, type DemoEnvironment } from './environment.ts'
import type { DemoShopOptions } from './options.ts'

/** What a person reads when the shop cannot start: the cause and what to change, never a stack trace. */
export function startupMessage (error: unknown, settings?: DemoEnvironment): string {
  const { code, message } = (error ?? {}) as { code?: string, message?: string }
  if (error instanceof DemoConfigError) return message as string
  if (code === 'EADDRINUSE') return `Port ${settings?.port ?? ''} on ${settings?.host ?? ''} is in use by another program: stop it, or set PORT to another port (PORT=0 picks a free one).`
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `HOST=${settings?.host ?? ''} is not an address of this machine.`
  if (code === 'EACCES') return `Port ${settings?.port ?? ''} needs privileges: use a port above 1023.`
  if (code === 'PAYWIRE_ERR_REDIS_UNREACHABLE' || code === 'PAYWIRE_ERR_POSTGRES_UNREACHABLE' || code === 'PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED' ||
    code === 'PAYWIRE_ERR_INVALID_OPTION' || code === 'PAYWIRE_ERR_REQUIRED_OPTION') return message as string
  return `The demo shop could not start: ${redactRedisUrl(String(message ?? error))}`
}

/** Runs the shop `build` makes with the environment's settings until a signal stops it. */
export async function startDemo (build: (options: DemoShopOptions) => Promise<FastifyInstance>): Promise<void> {
  let settings: DemoEnvironment | undefined
  let app: FastifyInstance | undefined
  try {
    settings = readEnvironment()
    const stripe = readStripeEnvironment()
    app = await build({
      redisUrl: settings.redisUrl,
      databaseUrl: settings.databaseUrl,
      databaseSchema: settings.databaseSchema,
      baseUrl: settings.baseUrl,
      logger: { level: settings.logLevel },
      paypal: settings.paypal,
      stripe
    })
    const shop = app
    const shutdown = async (signal: string): Promise<void> => {
      shop.log.info(`${signal} received, closing`)
      await shop.close()
      process.exit(0)
    }
    process.once('SIGINT', shutdown)
    process.once('SIGTERM', shutdown)
    const address = await app.listen({ port: settings.port, host: settings.host })
    const storage = settings.databaseUrl !== undefined ? (settings.redisUrl !== undefined ? 'postgres, tokens in redis' : 'postgres') : settings.redisUrl !== undefined ? 'redis' : 'memory'
    app.log.info(`Demo shop: ${address}/ (storage: ${storage}, PayPal: ${settings.paypal === 'simulator' ? 'simulator' : 'PayPal'}), Stripe: ${stripe === 'simulator' ? 'simulator' : 'Stripe'}`)
  } catch (error) {
    process.stderr.write(`${startupMessage(error, settings)}\n`)
    await app?.close().catch(() => {})
    process.exit(1)
  }
}
