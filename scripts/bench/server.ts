/*
 * One benchmarked application in its own process, so the load driver and each server have
 * their own CPU time and memory:
 *   --app paywire|floor --redis <url> --prefix <key prefix>
 *   --app paywire-pg|floor-pg --database <url> --schema <schema>
 * The demo shop's per-address rate limits are off: the load driver is one address, and the
 * floor has none. Prints {"port": n} once listening; GET /__bench/memory answers process.memoryUsage(),
 * GET /__bench/cpu process.cpuUsage().
 */
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { buildDemoShop } from '../../app.ts'
import { buildFloorApp } from './floor-app.ts'
import { buildFloorPgApp } from './floor-pg-app.ts'

const { values } = parseArgs({
  options: { app: { type: 'string' }, redis: { type: 'string' }, prefix: { type: 'string' }, database: { type: 'string' }, schema: { type: 'string' } }
})
const redisUrl = values.redis as string
const prefix = values.prefix as string

async function build (): Promise<FastifyInstance> {
  switch (values.app) {
    case 'floor': return await buildFloorApp(redisUrl, prefix)
    case 'floor-pg': return await buildFloorPgApp(values.database as string, values.schema as string)
    case 'paywire-pg': return await buildDemoShop({ databaseUrl: values.database, databaseSchema: values.schema, paypal: false, stripe: false, logger: false, rateLimits: false })
    default: return await buildDemoShop({ redisUrl, redisKeyPrefix: prefix, paypal: false, stripe: false, logger: false, rateLimits: false })
  }
}

const app = await build()
app.get('/__bench/memory', async () => process.memoryUsage())
// CPU time the server spent (µs): per flow, a figure the other processes on the machine barely move.
app.get('/__bench/cpu', async () => process.cpuUsage())
const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
