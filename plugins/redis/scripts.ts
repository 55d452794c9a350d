import type { Redis } from 'ioredis'

export type ScriptCall<R> = (...keysThenArgs: Array<string | number>) => Promise<R>

/**
 * A Lua script as a client command (EVALSHA, falling back to EVAL once per connection).
 * Defined once per client, however many storages share it. With `numberOfKeys` null, the
 * key count varies: calls pass it first.
 */
export function defineScript<R> (client: Redis, name: string, numberOfKeys: number | null, lua: string): ScriptCall<R> {
  const commands = client as unknown as Record<string, ScriptCall<R> | undefined>
  if (typeof commands[name] !== 'function') client.defineCommand(name, numberOfKeys === null ? { lua } : { numberOfKeys, lua })
  return (...keysThenArgs) => (commands[name] as ScriptCall<R>).apply(client, keysThenArgs)
}
