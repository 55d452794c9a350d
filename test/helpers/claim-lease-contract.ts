/*
 * Claims are leases (docs/consistency.md): a holder that died (here one that stops renewing,
 * as a SIGKILLed process does) frees its payment once its lease lapses and not before, and a
 * holder that is alive renews it for as long as its request runs. Part of backendContract(),
 * so every backend runs it, on the store's own clock (Redis' key expiry, PostgreSQL's
 * clock_timestamp(), the memory storage's Date.now()).
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  CLAIM_HOLDER, CheckpointAction, ExclusiveExecutor, Gateway, Payment, Refund, StorageExtension, StorageRegistry, claimHolder,
  type Claim, type Logger
} from '../../plugins/core/engine/index.ts'
import type { BackendUnderTest } from './backend-contract.ts'
import { FnGatewayAction } from './engine.ts'

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

/** The dead holder's lease: short, so the takeover is quick to watch. */
const DEAD_LEASE_MS = 400
/** The live holder's lease, renewed every third of it: it loses it only if a renewal is late by two thirds of it. */
const LIVE_LEASE_MS = 900
/** How late after the lease the takeover may come on a loaded 2-core machine (polling, the store's round trips). */
const MARGIN_MS = 1500

const quiet: Logger = { debug () {}, info () {}, warn () {}, error () {} }

async function storedPayment (under: BackendUnderTest): Promise<Payment> {
  const payment = Object.assign(under.payments.create(), { number: `LEASE-${Math.random()}`, totalAmount: 1999, currencyCode: 'EUR' })
  await under.payments.update(payment)
  return payment
}

export function claimLeaseContract (t: Test, make: (t: any) => Promise<BackendUnderTest>): void {
  t.test('contract: a claim whose holder stopped renewing goes to another claimant once its lease lapses, not before', async (t: any) => {
    const under = await make(t)
    const { tokens } = under
    const identity = under.payments.identify(await storedPayment(under))
    const asked = performance.now()
    const dead = await tokens.claimModel(identity, DEAD_LEASE_MS)
    const held = performance.now()
    t.equal(claimHolder(dead.id), CLAIM_HOLDER, 'the claim names its holder')
    // Another instance polls the payment (as the token routes do while it is busy).
    let refusals = 0
    let successor: Claim | undefined
    while (successor === undefined) {
      try {
        successor = await tokens.claimModel(identity, 10_000)
      } catch (error) {
        t.equal((error as { code?: string }).code, 'PAYWIRE_ERR_PAYMENT_BUSY')
        refusals++
        await sleep(10)
      }
    }
    const takenOver = performance.now()
    t.ok(refusals > 0, 'refused while the lease ran')
    // The lease starts when the store takes the claim (after `asked`) and the takeover was decided before `takenOver`.
    // 1 ms for a clock read in whole milliseconds.
    t.ok(takenOver - asked >= DEAD_LEASE_MS - 1, `not before the lease lapsed: ${Math.round(takenOver - asked)} ms after the claim, lease ${DEAD_LEASE_MS} ms`)
    t.ok(takenOver - held < DEAD_LEASE_MS + MARGIN_MS, `soon after: ${Math.round(takenOver - held)} ms (lease ${DEAD_LEASE_MS} ms + ${MARGIN_MS} ms margin)`)
    t.equal(await tokens.renewClaim(dead, 10_000), false, 'the holder, were it back, cannot renew its successor\'s claim')
    await tokens.releaseClaim(dead)
    t.equal(await tokens.renewClaim(successor, 10_000), true, 'nor release it: one holder at a time')
    await tokens.releaseClaim(successor)
  })

  t.test('contract: a live holder renews its claim while its request runs, past its first lease, and commits', async (t: any) => {
    const under = await make(t)
    const { tokens, backend, payments } = under
    const payment = await storedPayment(under)
    const identity = payments.identify(payment)
    const storages = new StorageRegistry().add(Payment, payments)
    const executor = new ExclusiveExecutor({ backend, tokenStorage: tokens, storages, logger: quiet, claimTtlMs: LIVE_LEASE_MS })
    // The renewals' timer does not keep a process alive (a server does): the test must.
    const alive = setInterval(() => {}, 1000)
    t.teardown(() => clearInterval(alive))
    // A hook on the renewals: the request waits for them, not for the clock.
    const renew = tokens.renewClaim.bind(tokens)
    let renewals = 0
    let renewed = () => {}
    tokens.renewClaim = async (claim, ttlMs) => {
      const held = await renew(claim, ttlMs)
      if (held) renewals++
      renewed()
      return held
    }
    t.teardown(() => { tokens.renewClaim = renew })
    let busy: unknown
    let ran = 0
    const started = performance.now()
    const gateway = new Gateway().addExtension(new StorageExtension(storages)).addAction(new CheckpointAction())
      .addAction(new FnGatewayAction(Refund, async (request) => {
        // Four renewals, a third of the lease apart: the lease the claim was taken with lapsed long ago.
        for (;;) {
          if (renewals >= 4) break
          await new Promise<void>((resolve) => { renewed = resolve })
        }
        ran = performance.now() - started
        busy = await tokens.claimModel(identity, 10_000).catch((error: { code?: string }) => error.code)
        ;(request.model as Payment).description = 'kept its claim'
      }))
    await executor.execute(gateway, identity, (target) => new Refund(target))
    t.ok(ran > LIVE_LEASE_MS, `the request ran ${Math.round(ran)} ms, longer than its lease (${LIVE_LEASE_MS} ms)`)
    t.equal(busy, 'PAYWIRE_ERR_PAYMENT_BUSY', 'nobody else could take the payment meanwhile')
    t.equal((await payments.find(payment.id as string))?.description, 'kept its claim', 'its commit found the claim still its own')
    await tokens.releaseClaim(await tokens.claimModel(identity, 10_000))
    t.pass('released with the commit')
  })
}
