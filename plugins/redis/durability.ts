import type { Cluster, Redis } from 'ioredis'
import type { RedisClient } from './keys.ts'

/*
 * Would payments stored in this Redis survive a restart? AOF (appendonly yes) keeps every
 * write (fsync'd every second by default); RDB snapshots alone (save …) lose what came
 * after the last snapshot; neither keeps nothing. Read with CONFIG GET, which managed
 * services may forbid: then nothing can be said, and nothing is claimed.
 */

export interface Persistence {
  /** Where the settings were read (each master of a Cluster). */
  node: string
  appendonly: string
  save: string
}

/** undefined when durable (AOF on every node); else what is missing, for the warning. */
export function durabilityProblem (nodes: Persistence[]): string | undefined {
  const lax = nodes.filter((node) => node.appendonly !== 'yes')
  if (lax.length === 0) return undefined
  const describe = (node: Persistence) => node.save.trim() === ''
    ? `${node.node}: no persistence (appendonly no, save "")`
    : `${node.node}: RDB snapshots only (appendonly no, save "${node.save}"): writes since the last snapshot are lost`
  return lax.map(describe).join('; ')
}

async function read (client: Redis, node: string): Promise<Persistence> {
  const appendonly = await client.call('CONFIG', 'GET', 'appendonly') as string[]
  const save = await client.call('CONFIG', 'GET', 'save') as string[]
  return { node, appendonly: appendonly[1] ?? '', save: save[1] ?? '' }
}

/** The persistence settings of the server (every master of a Cluster); null when CONFIG is not allowed. */
export async function readPersistence (client: RedisClient): Promise<Persistence[] | null> {
  try {
    if (!client.isCluster) {
      const { host, port, path } = (client as Redis).options
      return [await read(client as Redis, path ?? `${host}:${port}`)]
    }
    const masters = (client as Cluster).nodes('master')
    return await Promise.all(masters.map((node) => read(node, `${node.options.host}:${node.options.port}`)))
  } catch {
    // NOPERM, an unknown or renamed CONFIG command: a managed Redis that keeps its settings to itself.
    return null
  }
}
