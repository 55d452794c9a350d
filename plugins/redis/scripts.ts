import { createHash } from 'node:crypto'
import type { RedisClient } from './keys.ts'

export type ScriptCall<R> = (...keysThenArgs: Array<string | number>) => Promise<R>

/**
 * A Lua script as a client command (EVALSHA, falling back to EVAL once per connection).
 * Defined once per client, however many storages share it. With `numberOfKeys` null, the
 * key count varies: calls pass it first, and the script is sent as a plain EVALSHA, whose
 * keys ioredis knows, so a Cluster client's auto-pipelining routes it by its first key (a
 * defined command with a varying key count would be routed by the count).
 */
export function defineScript<R> (client: RedisClient, name: string, numberOfKeys: number | null, lua: string): ScriptCall<R> {
  if (numberOfKeys === null) return evalScript<R>(client, lua)
  const commands = client as unknown as Record<string, ScriptCall<R> | undefined>
  if (typeof commands[name] !== 'function') client.defineCommand(name, { numberOfKeys, lua })
  return (...keysThenArgs) => (commands[name] as ScriptCall<R>).apply(client, keysThenArgs)
}

const shas = new Map<string, string>()

function evalScript<R> (client: RedisClient, lua: string): ScriptCall<R> {
  let sha = shas.get(lua)
  if (sha === undefined) shas.set(lua, sha = createHash('sha1').update(lua).digest('hex'))
  return async (...keysThenArgs) => {
    try {
      return await client.evalsha(sha, ...keysThenArgs as [number, ...Array<string | number>]) as R
    } catch (error) {
      // A server that never ran it, or forgot it (restart, failover, SCRIPT FLUSH): EVAL loads it again.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return await client.eval(lua, ...keysThenArgs as [number, ...Array<string | number>]) as R
    }
  }
}
