import { assertTokenTtls, errorCodes } from '../core/engine/index.ts'
import { SCHEMA_NAME } from './sql.ts'
import type { PaywirePostgresOptions } from './plugin.ts'

export const OPTION_NAMES = [
  'connectionString', 'pool', 'schema', 'migrate', 'requireDurability', 'connectTimeoutMs', 'queryTimeoutMs', 'poolSize',
  'tokenTtl', 'sweepIntervalMs'
]
/** What Fastify's register() itself reads from a plugin's options. */
const REGISTER_OPTION_NAMES = ['logLevel', 'logSerializers']

function distance (a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length] as number
}

/** The option a misspelt name was meant to be, when one is near enough. */
export function nearestOption (name: string): string | undefined {
  const wanted = name.toLowerCase()
  const limit = Math.max(2, Math.floor(wanted.length / 3))
  let best: string | undefined
  let bestDistance = Infinity
  for (const known of OPTION_NAMES) {
    const d = distance(wanted, known.toLowerCase())
    if (d <= limit && d < bestDistance) [best, bestDistance] = [known, d]
  }
  return best
}

function fail (option: string, problem: string): never {
  throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(option, problem)
}

const positiveInteger = (value: unknown): boolean => Number.isInteger(value) && (value as number) > 0

/** Throws a coded error naming the first invalid option (a misspelt one with the option it was meant to be). */
export function validateOptions (options: PaywirePostgresOptions): void {
  for (const name of Object.keys(options)) {
    if (OPTION_NAMES.includes(name) || REGISTER_OPTION_NAMES.includes(name)) continue
    const near = nearestOption(name)
    fail(name, `is not an option of the paywire-postgres plugin${near === undefined ? '' : ` (did you mean ${near}?)`}; its options: ${OPTION_NAMES.join(', ')}`)
  }
  const checks: Array<[keyof PaywirePostgresOptions, (value: unknown) => boolean, string]> = [
    ['connectionString', (value) => typeof value === 'string' && value !== '', 'must be a postgres:// URL'],
    ['pool', (value) => typeof poolOf(value)?.query === 'function', 'must be a pg.Pool, or the app.pg of @fastify/postgres'],
    ['schema', (value) => typeof value === 'string' && SCHEMA_NAME.test(value), 'must be a lower-case SQL identifier of at most 63 characters (letters, digits, _), e.g. "paywire"'],
    ['migrate', (value) => typeof value === 'boolean', 'must be a boolean'],
    ['requireDurability', (value) => typeof value === 'boolean', 'must be a boolean'],
    ['connectTimeoutMs', positiveInteger, 'must be a whole number of milliseconds above 0'],
    ['queryTimeoutMs', positiveInteger, 'must be a whole number of milliseconds above 0'],
    ['poolSize', positiveInteger, 'must be a whole number above 0'],
    ['sweepIntervalMs', (value) => Number.isInteger(value) && (value as number) >= 0, 'must be a whole number of milliseconds, 0 or more (0: sweep only when sweep() is called)'],
    ['tokenTtl', (value) => typeof value === 'object' && value !== null, 'must be an object of lifetimes in seconds by token kind']
  ]
  for (const [option, valid, problem] of checks) {
    if (options[option] !== undefined && !valid(options[option])) fail(option, problem)
  }
  // Before any connection is opened: a lifetime that is not a number of seconds names itself ("tokenTtl.capture").
  if (options.tokenTtl !== undefined) assertTokenTtls(options.tokenTtl, 'tokenTtl')
  if (options.pool !== undefined && options.connectionString !== undefined) fail('connectionString', 'cannot be given with pool: the pool already says where PostgreSQL is')
}

/** A pg.Pool itself, or the pool inside @fastify/postgres's decorator ({ pool, query, connect, ... }). */
export function poolOf (value: unknown): { query: unknown, connect: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const inner = (value as { pool?: unknown }).pool
  const candidate = typeof inner === 'object' && inner !== null ? inner : value
  const methods = candidate as { query?: unknown, connect?: unknown }
  return typeof methods.query === 'function' && typeof methods.connect === 'function' ? methods as { query: unknown, connect: unknown } : undefined
}
