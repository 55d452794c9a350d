import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import type { Readable } from 'node:stream'

/**
 * Spawns a command (`npm start`, a tsx script) without tap's coverage hooks. tap puts them
 * back into a child's environment at spawn time, so a shell drops them just before the
 * command runs: a tsx-compiled copy of the sources writes coverage at other offsets than
 * tap's loader, and merging the two garbles the report.
 */
export function spawnUncovered (command: string, args: string[], options: SpawnOptions & { env: NodeJS.ProcessEnv }): ChildProcess & { stdout: Readable } {
  const child = spawn('/bin/sh', ['-c', 'unset NODE_OPTIONS NODE_V8_COVERAGE; exec "$@"', 'sh', command, ...args], { ...options, stdio: options.stdio ?? 'pipe' })
  // stdout is always a pipe: every caller reads where the child listens from it.
  if (child.stdout === null) throw new TypeError('spawnUncovered() needs stdout piped')
  return child as ChildProcess & { stdout: Readable }
}

/** This process's environment with some variables set and others removed. */
export function envWith (overrides: NodeJS.ProcessEnv, remove: string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides }
  for (const name of remove) delete env[name]
  return env
}
