/*
 * 200 PayPal flows, 40 at a time, with refunds and Syncs interleaved, and about one PayPal call in five
 * faulted: 5xx before or after the work, answers slower than the client's timeout, connections
 * reset before or after the work. Whatever happened, PayPal did each piece of work once, Paywire
 * lost no money fact, reported no refund PayPal did not make, and the two agree.
 */
import { setTimeout } from 'node:timers/promises'
import t from 'tap'
import { Refund, Sync, isErrorCode } from '../../../../plugins/core/index.ts'
import { assertAgree, integrityShop, paypalTruth, paywireTruth, type BackendKind } from '../fixtures/integrity.ts'
import { GATEWAY, checkout, decideOnApprovalPage, paypalIdOf, saleOf, storedPayment, visit, type Shop } from '../fixtures/shop.ts'

// 200 flows with faults: minutes on a loaded 2-core machine, more than the default file timeout.
t.setTimeout(300_000)

const FLOWS = Number(process.env.PAYWIRE_FAULT_FLOWS ?? 200)
/*
 * Redis by default: the store whose commits are scripts and round trips (memory commits in one
 * tick; the race tests cover both). PAYWIRE_FAULT_BACKENDS=memory,redis runs both.
 */
const BACKENDS = (process.env.PAYWIRE_FAULT_BACKENDS ?? 'redis').split(',') as BackendKind[]
const CONCURRENCY = 40
/** How often a step arms a fault (for its next 1–3 calls); with retries and webhooks around, about one call in five ends up faulted. */
const ARM_RATE = 0.22
/** Retries of one step by the buyer or the back office before the test gives up on it. */
const PATIENCE = 25

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

type FaultKind = 'error-before' | 'error-after' | 'timeout-before' | 'timeout-after' | 'reset-before' | 'reset-after'
const KINDS: FaultKind[] = ['error-before', 'error-after', 'timeout-before', 'timeout-after', 'reset-before', 'reset-after']

/** Arms faults at random through the simulator's own controls, and keeps count. */
class Faults {
  readonly rng: () => number
  readonly #shop: Shop
  readonly armed = new Map<FaultKind, number>()
  /** How many calls the armed faults may hit (a fault arms for the next 1–3 matching calls). */
  calls = 0

  constructor (shop: Shop, rng: () => number) {
    this.#shop = shop
    this.rng = rng
  }

  /** With probability ARM_RATE, a fault for the next 1–3 calls matching method and path. */
  maybe (method: string, path: string): void {
    const { rng } = this
    if (rng() >= ARM_RATE) return
    const kind = KINDS[Math.floor(rng() * KINDS.length)] as FaultKind
    const times = 1 + Math.floor(rng() * 3)
    const when = kind.endsWith('after') ? 'after' : 'before'
    const { faults } = this.#shop.paypal.simulator
    if (kind.startsWith('error')) faults.inject({ kind: 'error', status: rng() < 0.5 ? 500 : 503, when, method, path, times })
    else if (kind.startsWith('timeout')) faults.inject({ kind: 'delay', delayMs: 800, when, method, path, times })
    else {
      const held = faults.hold({ method, path, when, times })
      held.reached.catch(() => {})
      held.reset()
    }
    this.armed.set(kind, (this.armed.get(kind) ?? 0) + 1)
    this.calls += times
  }
}

/**
 * Visits until the shop answers a redirect, as a buyer reloads: a 5xx is retried at once and
 * counts against the buyer's patience; a busy payment (409) says another request holds it and
 * will finish, which takes as long as the machine's load makes it, so it is retried a moment
 * later (5 ms doubling to 100 ms) without counting.
 */
async function untilRedirect (url: string): Promise<string> {
  let pause = 5
  let last = ''
  for (let failures = 0; failures < PATIENCE;) {
    const page = await visit(url)
    last = `${page.status}: ${page.body.slice(0, 200)}`
    if (page.status === 302 || page.status === 303) return page.location
    if (page.status === 409) {
      await setTimeout(pause)
      pause = Math.min(pause * 2, 100)
    } else if (page.status >= 500) failures++
    else throw new Error(`${url} answered ${page.status}: ${page.body}`)
  }
  throw new Error(`${url} never redirected; last answer ${last}`)
}

const RETRIED = ['PAYWIRE_ERR_PAYMENT_BUSY', 'PAYWIRE_ERR_PROVIDER', 'PAYWIRE_ERR_CONCURRENT_UPDATE', 'PAYWIRE_ERR_CLAIM_LOST']

/**
 * Runs a back-office request as the payment's only writer until it succeeds: PayPal's errors are
 * retried at once; a busy payment is polled (5 ms doubling to 100 ms) until its holder is done.
 */
async function untilDone (work: () => Promise<unknown>): Promise<void> {
  let pause = 5
  let failures = 0
  for (;;) {
    try {
      await work()
      return
    } catch (error) {
      if (!RETRIED.some((code) => isErrorCode(error, code))) throw error
      // A busy payment says another writer holds it and will finish: how long it takes depends
      // on the machine's load, so only the writer's own failures count against its patience.
      if (isErrorCode(error, 'PAYWIRE_ERR_PAYMENT_BUSY')) {
        await setTimeout(pause)
        pause = Math.min(pause * 2, 100)
      } else if (++failures >= PATIENCE * 4) {
        throw error
      }
    }
  }
}

interface FlowResult {
  id: string
  paymentId: string
  /** Refunds the shop was told were made, in minor units. */
  reported: number[]
}

async function flow (shop: Shop, faults: Faults): Promise<FlowResult> {
  const { rng } = faults
  const exclusive = (id: string, request: (model: unknown) => unknown) =>
    untilDone(async () => shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, id), request))
  const started = await checkout(shop)
  faults.maybe('POST', '/v1/payments/payment')
  const approvalUrl = await untilRedirect(started.captureUrl)
  const paymentId = await paypalIdOf(shop, started.id)
  const returnUrl = await decideOnApprovalPage(approvalUrl, 'approve')
  const background: Array<Promise<void>> = []
  faults.maybe('POST', `/v1/payments/payment/${paymentId}/execute`)
  faults.maybe('GET', `/v1/payments/payment/${paymentId}`)
  // A back-office Sync racing the buyer's return, now and then.
  if (rng() < 0.3) background.push(exclusive(started.id, (model) => new Sync(model)))
  await untilRedirect(returnUrl)

  const reported: number[] = []
  const refunds = Math.floor(rng() * 3)
  for (let n = 0; n < refunds; n++) {
    const amount = 100 + Math.floor(rng() * 400)
    const saleId = saleOf((await storedPayment(shop, started.id)).details).id
    faults.maybe('POST', `/v1/payments/sale/${saleId}/refund`)
    faults.maybe('GET', `/v1/payments/payment/${paymentId}`)
    if (rng() < 0.3) background.push(exclusive(started.id, (model) => new Sync(model)))
    await exclusive(started.id, (model) => new Refund(model, { amount }))
    reported.push(amount)
  }
  await Promise.all(background)
  return { id: started.id, paymentId, reported }
}

for (const kind of BACKENDS) {
  t.test(`${FLOWS} PayPal flows, ~20% of calls faulted, refunds and Syncs interleaved: once each, nothing lost (${kind})`, async (t) => {
    const seed = Number(process.env.PAYWIRE_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31))
    t.comment(`seed ${seed} (PAYWIRE_FAULT_SEED to play it again)`)
    const rng = random(seed)
    const shop = await integrityShop(t, kind, {
      config: { 'http.Retry': 2, 'http.RetryBackoffMs': 1, 'http.CURLOPT_TIMEOUT': 0.5 }
    })
    const faults = new Faults(shop, rng)
    const results: FlowResult[] = []
    let next = 0
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < FLOWS) {
        next++
        results.push(await flow(shop, faults))
      }
    }))
    // Faults armed for calls that never came (a step that needed no PayPal call) did not happen.
    const faulted = faults.calls - shop.paypal.simulator.faults.remaining()
    shop.paypal.simulator.faults.clear()
    await shop.paypal.simulator.webhooks.waitForIdle()
    const calls = shop.paypal.simulator.requests().filter((request) => request.path.startsWith('/v1/payments/')).length
    t.comment(`faults armed: ${JSON.stringify(Object.fromEntries(faults.armed))}; ${faulted} of ${calls} payment API calls faulted`)
    t.ok(KINDS.every((kind) => (faults.armed.get(kind) ?? 0) > 0), 'every kind of fault was injected')
    // Per flow, not per call: retries after a timeout add calls, and how many depends on the machine's load.
    t.ok(faulted >= FLOWS, `at least one faulted call per flow on average (${faulted} in ${FLOWS} flows, ${calls} calls)`)

    // Before anything converges: every refund the shop reported is at PayPal, and every refund PayPal made is on record.
    let lostFacts = 0
    let unmade = 0
    for (const result of results) {
      const paypal = paypalTruth(shop, result.paymentId)
      const paywire = await paywireTruth(shop, result.id)
      const reported = result.reported.reduce((sum, amount) => sum + amount, 0)
      if (paypal.amounts?.refunded !== reported) unmade++
      if (paypal.refundIds.some((refundId) => !paywire.refundIds.includes(refundId)) || paywire.amounts?.captured !== paypal.amounts?.captured ||
        paywire.amounts?.refunded !== paypal.amounts?.refunded) lostFacts++
    }
    t.equal(unmade, 0, 'no refund reported but not made (nor made twice)')
    t.equal(lostFacts, 0, 'no lost money facts')

    const counters = shop.paypal.simulator.counters()
    t.equal(counters.paymentsCreated, FLOWS, 'one PayPal payment per flow: no phantom payments')
    t.equal(counters.paymentsExecuted, FLOWS, 'each executed once: no double executions')
    t.equal(counters.refunds, results.reduce((sum, result) => sum + result.reported.length, 0), 'each reported refund made once')
    t.ok(counters.idempotentReplays > 0, 'lost answers were replayed by PayPal-Request-Id')

    // A Sync per payment, then both sides read the same status and amounts.
    let disagreements = 0
    for (const result of results) {
      await untilDone(async () => shop.app.paywire.executeExclusive(GATEWAY, await storedPayment(shop, result.id), (model) => new Sync(model)))
      const quiet = { equal: (a: unknown, b: unknown) => { if (a !== b) disagreements++ }, same: (a: unknown, b: unknown) => { if (JSON.stringify(a) !== JSON.stringify(b)) disagreements++ }, ok: (value: unknown) => { if (value !== true) disagreements++ } }
      await assertAgree(quiet, shop, result.id, result.paymentId, result.reported.length === 0 ? 'captured' : 'refunded')
    }
    t.equal(disagreements, 0, 'after a Sync, PayPal and Paywire agree on every payment')
  })
}
