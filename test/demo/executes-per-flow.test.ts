/*
 * How many times the engine's execute loop runs for one checkout of the demo shop (checkout,
 * the capture URL, the done URL), by request class. Each run builds a context, runs every
 * extension hook and looks an action up: issue 23 counted 9 per flow (3 Capture, 5
 * GetHumanStatus, 1 Convert). The status reads are answered from the offline gateway's state
 * reader now, and a token becomes its payment within the capture's execute (nothing but
 * Paywire's own actions and extensions could answer or see either), so this pins the lower
 * count, 3 (Capture, its Convert, the Capture on the details): a change that brings executes
 * back fails here.
 */
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { buildDemoShop, type DemoShopOptions } from '../../app.ts'
import { StorageExtension, type Gateway } from '../../plugins/core/engine/index.ts'

type Test = Parameters<Parameters<typeof t.test>[0]>[0]

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function pathOf (url: string | string[] | undefined): string {
  const parsed = new URL(String(url))
  return parsed.pathname + parsed.search
}

/**
 * Executes by request class, as the storage extension (every gateway has it) sees them: it
 * ends each execute once. Wrapped on the instance, so the gateway still knows it as its own.
 */
function countExecutes (gateway: Gateway): Record<string, number> {
  const counts: Record<string, number> = {}
  const storage = gateway.extensions.find((extension) => extension instanceof StorageExtension) as StorageExtension
  const end = storage.onPostExecute.bind(storage)
  storage.onPostExecute = async (context) => {
    const name = (context.request as object).constructor.name
    counts[name] = (counts[name] ?? 0) + 1
    await end(context)
  }
  return counts
}

async function oneFlow (t: Test, options: DemoShopOptions): Promise<Record<string, number>> {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false, stripe: false, ...options })
  t.teardown(() => app.close())
  await app.ready()
  const counts = countExecutes(app.paywire.getGateway('offline'))
  const checkout = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=12.34&currency=EUR&gateway=offline', headers: FORM })
  t.equal(checkout.statusCode, 302)
  const capture = await app.inject({ url: pathOf(checkout.headers.location) })
  t.equal(capture.statusCode, 302)
  const done = await app.inject({ url: pathOf(capture.headers.location) })
  t.equal(done.statusCode, 200)
  t.match(done.json(), { status: 'captured', payment: { totalAmount: 1234, currencyCode: 'EUR' } }, 'the done page reads the status as before')
  return counts
}

const PINNED = { Capture: 2, Convert: 1 }

t.test('one flow on memory storage: 3 executes (was 9), no status read runs the execute loop', async (t) => {
  t.same(await oneFlow(t, {}), PINNED)
})

t.test('one flow on Redis: the same 3 executes', async (t) => {
  const prefix = `test:executes:${randomUUID()}:`
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.unlink(keys)
    await redis.quit()
  })
  t.same(await oneFlow(t, { redisUrl: REDIS_URL, redisKeyPrefix: prefix }), PINNED)
})
