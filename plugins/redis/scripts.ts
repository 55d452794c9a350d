import { createHash } from 'node:crypto'
import type { RedisClient } from './keys.ts'

export type ScriptCall<R> = (...keysThenArgs: Array<string | number>) => Promise<R>

/**
 * A Lua script as a function: EVALSHA by its SHA-1, and EVAL once when the server does not
 * have it (never ran it, or forgot it: restart, failover, SCRIPT FLUSH). With `numberOfKeys`,
 * calls pass the keys then the arguments; with null the key count varies, and calls pass it
 * first. Either way the command is a plain EVALSHA whose keys ioredis knows, so a Cluster
 * client routes it by its first key.
 *
 * Not ioredis's defineCommand(): the client's every auto-pipeline (one per tick that sends
 * anything) copies each defined command onto itself, two properties per script, on the hot
 * path of every request.
 */
export function defineScript<R> (client: RedisClient, numberOfKeys: number | null, lua: string): ScriptCall<R> {
  const call = evalScript<R>(client, lua)
  if (numberOfKeys === null) return call
  return (...keysThenArgs) => call(numberOfKeys, ...keysThenArgs)
}

const shas = new Map<string, string>()

function evalScript<R> (client: RedisClient, lua: string): ScriptCall<R> {
  let sha = shas.get(lua)
  if (sha === undefined) shas.set(lua, sha = createHash('sha1').update(lua).digest('hex'))
  const known = sha
  return (...keysThenArgs) => {
    const args = keysThenArgs as [number, ...Array<string | number>]
    return (client.evalsha(known, ...args) as Promise<R>).catch(async (error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return await (client.eval(lua, ...args) as Promise<R>)
    })
  }
}
