/*
 * A request's commits killed one at a time — Redis out of memory, the connection dropped
 * before the command or after Redis did the work — on a Redis of the test's own. Nothing is
 * ever half-written, PayPal does each piece of work once, and the buyer's retry succeeds. A
 * Redis gone silent answers a coded 503 within the command timeout.
 */
import t, { type Test } from 'tap'
import { Identity, type CommitSet, type TokenStorage } from '../../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../../plugins/redis/index.ts'
import { claimKey, recordKey, tokenKey } from '../../../../plugins/redis/keys.ts'
import { exhaustMemory, redisProxy, relieveMemory, shopClient, startRedisServer, untilConnected, type OwnRedis } from '../fixtures/redis-server.ts'
import { checkout, decideOnApprovalPage, readDone, startJourney, startShop, visit, type Shop } from '../fixtures/shop.ts'

/** The Redis backend, with a hook the test springs right before one chosen commit. */
class TrappedBackend extends RedisStorageBackend {
  commits = 0
  #trap: { at: number, spring: () => Promise<void> | void } | undefined

  /** `spring` runs right before the at-th commit from now (1: the next one). */
  trap (at: number, spring: () => Promise<void> | void): void {
    this.#trap = { at: this.commits + at, spring }
  }

  override async commit (set: CommitSet, tokens: TokenStorage): Promise<void> {
    this.commits++
    const trap = this.#trap
    if (trap !== undefined && this.commits === trap.at) {
      this.#trap = undefined
      await trap.spring()
    }
    await super.commit(set, tokens)
  }
}

/*
 * The commits of a PayPal payment, in order: the capture URL stores the create request id
 * (a checkpoint) and then PayPal's payment with the claim's release; the return URL stores the
 * execute request id (a checkpoint) and then the executed payment with the token's
 * invalidation and the claim's release.
 */
const STEPS = [
  { name: 'the create id checkpoint', visit: 'capture', at: 1, paypalDidIt: false },
  { name: 'the commit after create', visit: 'capture', at: 2, paypalDidIt: true },
  { name: 'the execute id checkpoint', visit: 'return', at: 1, paypalDidIt: false },
  { name: 'the commit after execute', visit: 'return', at: 2, paypalDidIt: true }
] as const

interface Scene {
  shop: Shop
  backend: TrappedBackend
  prefix: string
  client: ReturnType<typeof shopClient>
}

async function scene (t: Test, redisUrl: string): Promise<Scene> {
  const client = shopClient(redisUrl)
  t.teardown(() => client.disconnect())
  const prefix = `crash:${Math.random().toString(36).slice(2)}:`
  const backend = new TrappedBackend(client, { keyPrefix: prefix })
  // Webhooks stay off: their commits would shift the count. A lost claim lasts a second, not 30.
  const shop = await startShop(t, { backend, webhooks: false, configure: (builder) => { builder.setClaimTtlMs(1000) } })
  return { shop, backend, prefix, client }
}

/** The capture URL (step 1–2) or the return URL (step 3–4) of a fresh payment, and its stored id. */
async function urlFor (shop: Shop, step: typeof STEPS[number]): Promise<{ id: string, url: string, captureUrl: string }> {
  if (step.visit === 'capture') {
    const started = await checkout(shop)
    return { id: started.id, url: started.captureUrl, captureUrl: started.captureUrl }
  }
  const journey = await startJourney(shop)
  return { id: journey.id, url: await decideOnApprovalPage(journey.approvalUrl, 'approve'), captureUrl: journey.captureUrl }
}

function tokenHashOf (captureUrl: string): string {
  return new URL(captureUrl).pathname.split('/').at(-1) as string
}

interface Snapshot {
  record: string | null
  token: string | null
}

async function snapshot (redis: OwnRedis, prefix: string, id: string, captureUrl: string): Promise<Snapshot> {
  return { record: await redis.admin.get(recordKey(prefix, 'Payment', id)), token: await redis.admin.get(tokenKey(prefix, tokenHashOf(captureUrl))) }
}

/** The buyer's retry: PayPal's page after the capture URL, the done page (captured) after the return URL. */
async function retrySucceeds (t: Test, shop: Shop, step: typeof STEPS[number], url: string): Promise<void> {
  const again = await visit(url)
  t.equal(again.status, 302, 'the buyer\'s retry works')
  if (step.visit === 'capture') {
    t.equal(new URL(again.location).pathname, '/cgi-bin/webscr', 'on to PayPal')
    t.equal(shop.paypal.simulator.counters().paymentsCreated, 1, 'one PayPal payment')
  } else {
    t.equal((await readDone(again.location)).status, 'captured')
    t.equal(shop.paypal.simulator.counters().paymentsExecuted, 1, 'paid once')
  }
}

t.test('Redis out of memory at each commit: refused whole, the claim released, the buyer\'s retry succeeds', async (t) => {
  const redis = await startRedisServer(t)
  for (const step of STEPS) {
    await t.test(step.name, async (t) => {
      const { shop, backend, prefix, client } = await scene(t, redis.url)
      const { id, url, captureUrl } = await urlFor(shop, step)
      let before: Snapshot | undefined
      backend.trap(step.at, async () => {
        before = await snapshot(redis, prefix, id, captureUrl)
        await exhaustMemory(redis.admin)
      })
      let failed
      try {
        failed = await visit(url)
      } finally {
        await relieveMemory(redis.admin)
      }
      t.equal(failed.status, 503)
      t.match(JSON.parse(failed.body), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
      t.same(await snapshot(redis, prefix, id, captureUrl), before, 'nothing half-written: the record and the token as before the commit')
      // The 503 does not wait for the release (sent after the failed commit on the shop's
      // connection): a PING on that connection answers once Redis has run it.
      await client.ping()
      t.equal(await redis.admin.exists(claimKey(prefix, new Identity(id, 'Payment'))), 0, 'the claim was released')
      const counters = shop.paypal.simulator.counters()
      t.equal(step.visit === 'capture' ? counters.paymentsCreated : counters.paymentsExecuted, step.paypalDidIt ? 1 : 0,
        step.paypalDidIt ? 'PayPal did the work before the commit' : 'the id was not stored, so PayPal was not called')
      await retrySucceeds(t, shop, step, url)
    })
  }
})

t.test('the connection dropped at each commit, before Redis got it: nothing written; the retry succeeds once the claim expired', async (t) => {
  const redis = await startRedisServer(t)
  const proxy = await redisProxy(t, redis.url)
  for (const step of STEPS) {
    await t.test(step.name, async (t) => {
      await proxy.restore()
      const { shop, backend, prefix, client } = await scene(t, proxy.url)
      const { id, url, captureUrl } = await urlFor(shop, step)
      let before: Snapshot | undefined
      backend.trap(step.at, async () => {
        before = await snapshot(redis, prefix, id, captureUrl)
        await proxy.cut()
      })
      const failed = await visit(url)
      await proxy.restore()
      await untilConnected(client)
      t.equal(failed.status, 503)
      t.match(JSON.parse(failed.body), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
      t.same(await snapshot(redis, prefix, id, captureUrl), before, 'nothing half-written')
      // Redis was gone when the request ended: its claim (a second here) can only expire; the buyer's retry waits for it.
      await retrySucceeds(t, shop, step, url)
    })
  }
})

t.test('the connection dropped at each commit after Redis did it: all of it applied, never half; the retry succeeds', async (t) => {
  const redis = await startRedisServer(t)
  const proxy = await redisProxy(t, redis.url)
  for (const step of STEPS) {
    await t.test(step.name, async (t) => {
      const { shop, backend, prefix } = await scene(t, proxy.url)
      const { id, url, captureUrl } = await urlFor(shop, step)
      let dropped: Promise<void> | undefined
      backend.trap(step.at, () => { dropped = proxy.dropNextAnswer() })
      const first = await visit(url)
      await dropped
      const after = await snapshot(redis, prefix, id, captureUrl)
      const record = JSON.parse((after.record as string).slice((after.record as string).indexOf(' ') + 1))
      const used = after.token?.startsWith('used:') === true
      // The token is used up exactly when the executed payment was stored: in the same script.
      t.equal(used, record.details.state === 'approved', `token ${used ? 'used' : 'usable'}, payment ${String(record.details.state)}`)
      if (first.status === 302 && step.visit === 'return') {
        t.equal((await readDone(first.location)).status, 'captured', 'the request saw its own commit through')
      } else if (first.status !== 302) {
        t.match(JSON.parse(first.body), { code: /^PAYWIRE_ERR_(STORAGE_UNAVAILABLE|CLAIM_LOST|CONCURRENT_UPDATE)$/ })
      }
      const again = await visit(url)
      t.ok(again.status === 302 || again.status === 303, 'the buyer\'s retry lands where the payment is')
      if (step.visit === 'return') t.equal((await readDone(again.location)).status, 'captured')
      const counters = shop.paypal.simulator.counters()
      t.equal(counters.paymentsCreated, 1)
      t.equal(counters.paymentsExecuted, step.visit === 'return' ? 1 : 0)
    })
  }
})

t.test('a Redis gone silent: the buyer gets a coded 503 within the command timeout, never a hang', async (t) => {
  const redis = await startRedisServer(t)
  const proxy = await redisProxy(t, redis.url)
  const { shop } = await scene(t, proxy.url)
  const started = await checkout(shop)
  proxy.silence()
  const began = performance.now()
  const answer = await visit(started.captureUrl)
  const elapsed = performance.now() - began
  await proxy.restore()
  t.equal(answer.status, 503)
  t.match(JSON.parse(answer.body), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
  t.ok(elapsed < 500 + 400, `answered in ${Math.round(elapsed)} ms (command timeout 500 ms)`)
})
