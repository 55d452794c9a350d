/*
 * One benchmarked application in its own process, so the load driver and each server have
 * their own CPU time and memory:
 *   --app paywire|floor|floor-guaranteed --redis <url> --prefix <key prefix>
 *   --app paywire-pg|floor-pg|floor-guaranteed-pg --database <url> --schema <schema>
 * The demo shop's per-address rate limits are off: the load driver is one address, and the
 * floor has none. Prints {"port": n} once listening; GET /__bench/memory answers process.memoryUsage(),
 * GET /__bench/cpu process.cpuUsage(), GET /__bench/pg the statements and transactions sent to
 * PostgreSQL so far, GET /__bench/delivered the events its handlers were given.
 */
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { buildDemoShop } from '../../app.ts'
import { buildFloorApp } from './floor-app.ts'
import { buildFloorPgApp } from './floor-pg-app.ts'
import { buildGuaranteedFloorApp } from './floor-guaranteed-app.ts'
import { buildGuaranteedFloorPgApp } from './floor-guaranteed-pg-app.ts'
import { countPgStatements } from './pg-stats.ts'

const { values } = parseArgs({
  options: { app: { type: 'string' }, redis: { type: 'string' }, prefix: { type: 'string' }, database: { type: 'string' }, schema: { type: 'string' } }
})
const redisUrl = values.redis as string
const prefix = values.prefix as string
// Counted in this process, before any pool exists: the same count for every application.
const pgCounts = countPgStatements()

async function build (): Promise<FastifyInstance> {
  switch (values.app) {
    case 'floor': return await buildFloorApp(redisUrl, prefix)
    case 'floor-guaranteed': return await buildGuaranteedFloorApp(redisUrl, prefix)
    case 'floor-pg': return await buildFloorPgApp(values.database as string, values.schema as string)
    case 'floor-guaranteed-pg': return await buildGuaranteedFloorPgApp(values.database as string, values.schema as string)
    case 'paywire-pg': return withDelivered(await buildDemoShop({ databaseUrl: values.database, databaseSchema: values.schema, paypal: false, stripe: false, logger: false, rateLimits: false }))
    default: return withDelivered(await buildDemoShop({ redisUrl, redisKeyPrefix: prefix, paypal: false, stripe: false, logger: false, rateLimits: false }))
  }
}

/** Counts the shop's delivered events: how many events a flow makes, from the handlers' side. */
function withDelivered (app: FastifyInstance): FastifyInstance {
  let delivered = 0
  app.paywire.onAny(() => { delivered++ })
  app.get('/__bench/delivered', async () => ({ delivered }))
  return app
}

const app = await build()
app.get('/__bench/memory', async () => process.memoryUsage())
// CPU time the server spent (µs): per flow, a figure the other processes on the machine barely move.
app.get('/__bench/cpu', async () => process.cpuUsage())
app.get('/__bench/pg', async () => ({ ...pgCounts }))
const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
