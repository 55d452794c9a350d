import type { Redis } from 'ioredis'

export interface RedisCounters {
  /** Commands executed (INFO commandstats, summed). */
  commands: number
  /** Read events the server processed: one per batch of commands a client sent, i.e. round trips. */
  reads: number
  /** CPU seconds Redis spent (INFO cpu, user + system, main thread and children). */
  cpuSeconds: number
  /** Bytes Redis read from its clients (INFO stats total_net_input_bytes): what the commands and their arguments weigh. */
  bytesIn: number
  /** Bytes Redis wrote to its clients (total_net_output_bytes): the replies. */
  bytesOut: number
}

export async function redisCounters (redis: Redis): Promise<RedisCounters> {
  const stats = await redis.info('stats')
  const commandstats = await redis.info('commandstats')
  const cpu = await redis.info('cpu')
  const cpuSeconds = Number(/used_cpu_user:([\d.]+)/.exec(cpu)?.[1] ?? NaN) + Number(/used_cpu_sys:([\d.]+)/.exec(cpu)?.[1] ?? NaN)
  const reads = Number(/total_reads_processed:(\d+)/.exec(stats)?.[1] ?? NaN)
  let commands = 0
  for (const match of commandstats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
    // The benchmark's own INFO calls are not the applications' work.
    if (match[1] !== 'info') commands += Number(match[2])
  }
  const bytesIn = Number(/total_net_input_bytes:(\d+)/.exec(stats)?.[1] ?? NaN)
  const bytesOut = Number(/total_net_output_bytes:(\d+)/.exec(stats)?.[1] ?? NaN)
  return { commands, reads, cpuSeconds, bytesIn, bytesOut }
}
