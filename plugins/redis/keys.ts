import type { Cluster, Redis } from 'ioredis'
import { AFFINITY_TAG_LENGTH, affinityTag, errorCodes, type Identity } from '../core/engine/index.ts'
import { withDeadline } from './command-deadlines.ts'

/** A single Redis or a Redis Cluster: every script's keys share a slot, so both work. */
export type RedisClient = Redis | Cluster

/*
 * Where things live in Redis. A payment's record, its tokens and its claim share a hash
 * tag ({…}) derived from the payment's identity — token hashes start with it — so every
 * key a request commits is in one slot, and one script can check and write them all.
 */

/** The hash tag of a model's keys. */
export function modelTag (modelName: string, id: string): string {
  return `{${affinityTag(modelName, id)}}`
}

/** The hash tag of a token's keys: the affinity tag its hash starts with. */
export function tokenTag (hash: string): string {
  return `{${hash.slice(0, AFFINITY_TAG_LENGTH)}}`
}

/**
 * The part of a key Redis hashes to pick its slot: the first non-empty {…}, else the key.
 * Keys with the same tag share a slot (on a Cluster, one script may touch them together).
 */
export function hashTag (key: string): string {
  const open = key.indexOf('{')
  if (open === -1) return key
  const close = key.indexOf('}', open + 1)
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close)
}

/** A model's creation-ordered list of ids, under the model's own tag (with its counter and indexes). */
export function idsKey (prefix: string, modelName: string): string {
  return `${prefix}ids:{${modelName}}`
}

export function counterKey (prefix: string, modelName: string): string {
  return `${prefix}counter:{${modelName}}`
}

/** Where a model's index keys start: `<prefix>index:{Model}:`, then `<field>:<value>`. */
export function indexPrefix (prefix: string, modelName: string): string {
  return `${prefix}index:{${modelName}}:`
}

export function recordKey (prefix: string, modelName: string, id: string): string {
  return `${prefix}${modelTag(modelName, id)}:model:${modelName}:${id}`
}

/**
 * How the record key of a token's model starts when the model shares the token's tag (a
 * token made by the token factory): a script that read the token appends the model's name
 * and id to it and reads the record in the token's slot. For any other token the key it
 * makes is no model's (its tag is not the model's), so nothing read there is ever taken for it.
 */
export function recordKeyStartOfTokenHash (prefix: string, hash: string): string {
  return `${prefix}${tokenTag(hash)}:model:`
}

export function tokenKey (prefix: string, hash: string): string {
  return `${prefix}${tokenTag(hash)}:token:${hash}`
}

/**
 * The claim of every model with this tag. One per tag rather than per model, so a token
 * route finds the token and claims its payment in one script whose keys are known up
 * front; two payments sharing a 48-bit tag only ever wait for each other.
 */
export function claimKey (prefix: string, identity: Identity): string {
  return `${prefix}${modelTag(identity.modelName, identity.id)}:claim`
}

/**
 * The claim key a token route takes with its token, before it knows the token's model; a
 * token that points at no model (a gateway-wide notify token) claims it too.
 */
export function claimKeyOfTokenHash (prefix: string, hash: string): string {
  return `${prefix}${tokenTag(hash)}:claim`
}

/*
 * A record is stored as "<version> <json>". Records written before versions existed are
 * plain JSON: they read as version 1.
 */
export function encodeRecord (version: number, json: string): string {
  return `${version} ${json}`
}

export function decodeRecord (stored: string): { version: number, json: string } {
  if (stored.startsWith('{')) return { version: 1, json: stored }
  const space = stored.indexOf(' ')
  return { version: Number(stored.slice(0, space)), json: stored.slice(space + 1) }
}

/** A used token keeps its JSON behind this marker until it expires. */
export const USED_MARKER = 'used:'

/**
 * A failed Redis call as a coded 503. ioredis attaches the command's arguments (records,
 * passwords) to its errors: the cause keeps only the error's name, the first line of the
 * server's or client's message (its `reason`, for the logs) and the command's name.
 */
export function unavailable (error: unknown): Error {
  if (error instanceof Error && (error as { code?: unknown }).code?.toString().startsWith('PAYWIRE_ERR_') === true) return error
  const message = error instanceof Error ? error.message : String(error)
  const reason = (message.split('\n')[0] ?? '').slice(0, 160)
  const name = error instanceof Error ? error.name : 'Error'
  const command = (error as { command?: { name?: unknown } } | null)?.command?.name
  // An Error, so loggers serialize it as the cause; its own stack would only point here.
  const cause = Object.assign(new Error(reason), { name, stack: `${name}: ${reason}` }, typeof command === 'string' ? { command: { name: command } } : {})
  return Object.assign(new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('Redis', { cause }), { reason })
}

/**
 * Awaits a Redis call, turning its failures into PAYWIRE_ERR_STORAGE_UNAVAILABLE. With
 * `deadlineMs`, the call also fails once that long has passed since it was issued: ioredis
 * sends one auto-pipeline at a time per connection and starts a command's `commandTimeout`
 * only when its pipeline is sent, so a command queued behind one a silent Redis holds would
 * wait out that one's timeout before its own began (a commit's 503 after twice the bound).
 * Not async: every Redis call of a request passes here, and one promise each is enough.
 */
export function guarded<T> (call: Promise<T>, deadlineMs?: number): Promise<T> {
  return deadlineMs === undefined ? call.catch(rethrowUnavailable) : withDeadline(call, deadlineMs, unavailable)
}

function rethrowUnavailable (error: unknown): never {
  throw unavailable(error)
}

/** The client's command timeout (ms), counted from when a command is issued by guarded(); undefined without one. */
export function commandTimeoutOf (client: RedisClient): number | undefined {
  const options = client.isCluster ? (client as Cluster).options.redisOptions : (client as Redis).options
  const timeout = options?.commandTimeout
  return typeof timeout === 'number' && timeout > 0 ? timeout : undefined
}

const SETTLED_GUARD = Symbol.for('paywire.redis.dropSettledCommands')

/**
 * Keeps a client from writing a command its caller already gave up on. ioredis queues the
 * commands issued while it reconnects and sends again those in flight when a connection
 * dropped; `commandTimeout` rejects them on time but leaves them queued, so a commit answered
 * 503 ("nothing was written") would still be written once the connection came back, seconds
 * or minutes later. A command already settled is skipped instead. Installed once per client.
 */
export function dropSettledCommands (client: RedisClient): void {
  const target = client as Redis & { [SETTLED_GUARD]?: true }
  if (target[SETTLED_GUARD] === true) return
  Object.defineProperty(target, SETTLED_GUARD, { value: true })
  const sendCommand = target.sendCommand
  type Command = Parameters<typeof sendCommand>[0]
  target.sendCommand = function paywireSendUnsettled (this: Redis, command: Command, ...rest: unknown[]) {
    if (command.isSettled) return command.promise
    return (sendCommand as (...args: unknown[]) => unknown).call(this, command, ...rest)
  } as typeof sendCommand
}
