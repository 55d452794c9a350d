/*
 * One benchmarked application in its own process, so the load driver and each server have
 * their own CPU time and memory: `--app paywire|floor --redis <url> --prefix <key prefix>`.
 * Prints {"port": n} once listening; GET /__bench/memory answers process.memoryUsage().
 */
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { buildDemoShop } from '../../app.ts'
import { buildFloorApp } from './floor-app.ts'

const { values } = parseArgs({ options: { app: { type: 'string' }, redis: { type: 'string' }, prefix: { type: 'string' } } })
const redisUrl = values.redis as string
const prefix = values.prefix as string

const app: FastifyInstance = values.app === 'floor'
  ? await buildFloorApp(redisUrl, prefix)
  : await buildDemoShop({ redisUrl, redisKeyPrefix: prefix, paypal: false, logger: false })

app.get('/__bench/memory', async () => process.memoryUsage())
const address = await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
