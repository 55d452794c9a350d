import createError from '@fastify/error'
import { withKind } from '../core/engine/index.ts'

/*
 * The Redis plugin's own codes (the engine's are in plugins/core/engine/errors.ts; all of
 * them are documented in docs/errors.md). Exported as redisErrorCodes by paywire/redis.
 */

export const PAYWIRE_ERR_REDIS_UNREACHABLE = withKind('unavailable', createError<[string, string, { cause: unknown }?]>(
  'PAYWIRE_ERR_REDIS_UNREACHABLE',
  'Redis at %s is unreachable (%s). Check the address (the url, cluster or client option, else REDIS_URL) and that the server is running.',
  500
))
export const PAYWIRE_ERR_REDIS_ALREADY_REGISTERED = withKind('misconfigured', createError(
  'PAYWIRE_ERR_REDIS_ALREADY_REGISTERED',
  'paywire-redis is already registered in this application: register it once, and pass app.paywireRedis to the paywire plugin\'s backend option.',
  500
))

export const PAYWIRE_ERR_REDIS_NOT_DURABLE = withKind('misconfigured', createError<[string, string]>(
  'PAYWIRE_ERR_REDIS_NOT_DURABLE',
  'Redis at %s keeps payments but would lose them on a restart (%s). Turn on appendonly (AOF), or drop requireDurability (docs/durability.md).',
  500
))

/** Logged (at warn, with this code) at boot when Redis keeps payments without persistence; requireDurability makes it PAYWIRE_ERR_REDIS_NOT_DURABLE. */
export const PAYWIRE_WARN_REDIS_NOT_DURABLE = 'PAYWIRE_WARN_REDIS_NOT_DURABLE'
