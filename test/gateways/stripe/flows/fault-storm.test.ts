/*
 * Stripe flows run concurrently with about one Stripe call in five faulted through the
 * simulator's fault gate: 5xx before the work, the work done and the answer lost, no answer
 * within the client's timeout, rate limits. Buyers and the back office retry what failed.
 * Whatever happened, Stripe made one session per payment, captured each authorization once,
 * made each refund the shop was told of once, and after a Sync Paywire and Stripe agree.
 */
import { setTimeout } from 'node:timers/promises'
import t from 'tap'
import type { FaultRule } from 'paywire/stripe-simulator'
import { Capture, Refund, Sync, isErrorCode } from '../../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../../plugins/redis/index.ts'
import { testRedis } from '../../../plugins/redis/fixtures.ts'
import { assertAgree, stripeTruth } from '../fixtures/truth.ts'
import { GATEWAY, checkout, startStripeShop, storedPayment, submit, visit, type StripeShop } from '../fixtures/shop.ts'

const FLOWS = Number(process.env.PAYWIRE_FAULT_FLOWS ?? 60)
// Retries after timeouts make the run's length depend on the machine's load (about 35 s alone on two cores).
t.setTimeout(300_000)
const CONCURRENCY = 15
/** How often a step arms a fault (for its next 1–4 calls); with webhooks' reads and retries around, about one call in five ends up faulted. */
const ARM_RATE = 0.6
const PATIENCE = 30

/** A small seeded generator (mulberry32): a failing run can be played again with its seed. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type FaultKind = 'error' | 'lose' | 'hang' | 'rate_limit'
const KINDS: FaultKind[] = ['error', 'lose', 'hang', 'rate_limit']

class Faults {
  readonly rng: () => number
  readonly #shop: StripeShop
  readonly armed = new Map<FaultKind, number>()
  calls = 0

  constructor (shop: StripeShop, rng: () => number) {
    this.#shop = shop
    this.rng = rng
  }

  maybe (method: string, path: string): void {
    if (this.rng() >= ARM_RATE) return
    const kind = KINDS[Math.floor(this.rng() * KINDS.length)] as FaultKind
    const times = 1 + Math.floor(this.rng() * 4)
    const rule: FaultRule = kind === 'error' ? { kind, status: this.rng() < 0.5 ? 500 : 503, method, path, times } : { kind, method, path, times }
    this.#shop.stripe.simulator.faults.inject(rule)
    this.armed.set(kind, (this.armed.get(kind) ?? 0) + 1)
    this.calls += times
  }
}

/** Visits until the shop answers a redirect: a 5xx is retried at once, a busy payment (409) a moment later, as a buyer reloads. */
async function untilRedirect (url: string): Promise<string> {
  let last = ''
  for (let failures = 0; failures < PATIENCE;) {
    const page = await visit(url)
    last = `${page.status}: ${page.body.slice(0, 200)}`
    if (page.status === 302 || page.status === 303) return page.location
    if (page.status === 409) await setTimeout(10)
    else if (page.status >= 500) failures++
    else throw new Error(`${url} answered ${page.status}: ${page.body}`)
  }
  throw new Error(`${url} never redirected; last answer ${last}`)
}

const RETRIED = ['PAYWIRE_ERR_PAYMENT_BUSY', 'PAYWIRE_ERR_PROVIDER', 'PAYWIRE_ERR_CONCURRENT_UPDATE', 'PAYWIRE_ERR_CLAIM_LOST']

/** A back-office request, as its only writer, until it succeeds: Stripe's failures are retried at once, a busy payment polled. */
async function untilDone (shop: StripeShop, id: string, create: (model: unknown) => object): Promise<void> {
  for (let failures = 0; ;) {
    try {
      await shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, id), create)
      return
    } catch (error) {
      if (!RETRIED.some((code) => isErrorCode(error, code))) throw error
      if (isErrorCode(error, 'PAYWIRE_ERR_PAYMENT_BUSY')) await setTimeout(10)
      else if (++failures >= PATIENCE) throw error
    }
  }
}

interface FlowResult { id: string, authorize: boolean, captured: number, refunds: number[] }

async function flow (shop: StripeShop, faults: Faults): Promise<FlowResult> {
  const { rng } = faults
  const authorize = rng() < 0.3
  const total = 1000 + Math.floor(rng() * 4000)
  const started = await checkout(shop, { totalAmount: total }, authorize ? 'authorize' : 'capture')
  faults.maybe('POST', '/v1/checkout/sessions')
  const sessionUrl = await untilRedirect(started.captureUrl)
  if (rng() < 0.2) await submit(sessionUrl, 'pm_card_chargeDeclined')
  const paid = await submit(sessionUrl)
  faults.maybe('GET', '/v1/checkout/sessions/*')
  faults.maybe('GET', '/v1/payment_intents/*')
  const background: Array<Promise<void>> = []
  if (rng() < 0.3) background.push(untilDone(shop, started.id, (model) => new Sync(model)))
  await untilRedirect(paid.location)
  let captured = total
  if (authorize) {
    captured = total - Math.floor(rng() * 500)
    faults.maybe('POST', '/v1/payment_intents/*/capture')
    await untilDone(shop, started.id, (model) => new Capture(model, { amount: captured }))
  }
  const refunds: number[] = []
  for (let n = Math.floor(rng() * 3); n > 0; n--) {
    const amount = 50 + Math.floor(rng() * 200)
    faults.maybe('POST', '/v1/refunds')
    faults.maybe('GET', '/v1/refunds')
    faults.maybe('GET', '/v1/disputes')
    if (rng() < 0.3) background.push(untilDone(shop, started.id, (model) => new Sync(model)))
    await untilDone(shop, started.id, (model) => new Refund(model, { amount }))
    refunds.push(amount)
  }
  await Promise.all(background)
  return { id: started.id, authorize, captured, refunds }
}

t.test(`${FLOWS} Stripe flows, ~20% of Stripe calls faulted, captures, refunds and Syncs interleaved (Redis): once each, nothing lost`, async (t) => {
  const seed = Number(process.env.PAYWIRE_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31))
  t.comment(`seed ${seed} (PAYWIRE_FAULT_SEED to play it again)`)
  const { client, prefix } = await testRedis(t, 'stripe-storm')
  const shop = await startStripeShop(t, {
    backend: new RedisStorageBackend(client, { keyPrefix: prefix }),
    gateway: { max_network_retries: 1, timeout_ms: 400 }
  })
  const faults = new Faults(shop, random(seed))
  const results: FlowResult[] = []
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < FLOWS) {
      next++
      results.push(await flow(shop, faults))
    }
  }))
  const faulted = faults.calls - shop.stripe.simulator.faults.remaining()
  shop.stripe.simulator.faults.clear()
  await shop.stripe.simulator.faults.untilNoneHanging()
  await shop.stripe.simulator.webhooks.waitForIdle()
  const calls = Object.entries(shop.stripe.simulator.calls()).filter(([route]) => route.includes(' /v1/')).reduce((sum, [, count]) => sum + count, 0)
  t.comment(`faults armed: ${JSON.stringify(Object.fromEntries(faults.armed))}; ${faulted} of ${calls} API calls faulted`)
  t.ok(KINDS.every((kind) => (faults.armed.get(kind) ?? 0) > 0), 'every kind of fault was injected')
  t.ok(faulted / calls >= 0.15, `about one call in five faulted (${faulted} of ${calls})`)

  let wrong = 0
  for (const result of results) {
    const truth = await stripeTruth(shop, (await storedPayment(shop, result.id)).details.id)
    const refunded = result.refunds.reduce((sum, amount) => sum + amount, 0)
    if (truth.amounts.captured !== result.captured || truth.amounts.refunded !== refunded) wrong++
  }
  t.equal(wrong, 0, 'Stripe captured and refunded exactly what the shop was told, per payment')
  const counters = shop.stripe.simulator.counters()
  t.equal(counters.sessionsCreated, FLOWS, 'one Checkout Session per payment: none made twice')
  t.equal(counters.captures, results.filter((result) => result.authorize).length, 'each authorization captured once')
  t.equal(counters.refunds, results.reduce((sum, result) => sum + result.refunds.length, 0), 'each refund the shop was told of made once')

  let disagreements = 0
  const quiet = {
    equal: (a: unknown, b: unknown) => { if (a !== b) disagreements++ },
    same: (a: unknown, b: unknown) => { if (JSON.stringify(a) !== JSON.stringify(b)) disagreements++ },
    ok: (value: unknown) => { if (value !== true) disagreements++ }
  }
  for (const result of results) {
    await untilDone(shop, result.id, (model) => new Sync(model))
    await assertAgree(quiet, shop, result.id, result.refunds.length === 0 ? 'captured' : 'refunded')
  }
  t.equal(disagreements, 0, 'after a Sync, Stripe and Paywire agree on every payment')
})
