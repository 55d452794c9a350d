import type { Redis } from 'ioredis'

export type ScriptCall<R> = (...keysThenArgs: Array<string | number>) => Promise<R>

/**
 * A Lua script as a client command (EVALSHA, falling back to EVAL once per connection).
 * Defined once per client, however many storages share it.
 */
export function defineScript<R> (client: Redis, name: string, numberOfKeys: number, lua: string): ScriptCall<R> {
  const commands = client as unknown as Record<string, ScriptCall<R> | undefined>
  if (typeof commands[name] !== 'function') client.defineCommand(name, { numberOfKeys, lua })
  return (...keysThenArgs) => (commands[name] as ScriptCall<R>).apply(client, keysThenArgs)
}
