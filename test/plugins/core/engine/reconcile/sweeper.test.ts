import t from 'tap'
import {
  MemoryStorage, Payment, ReconcileSweeper, errorCodes, reconcileOptions,
  type PaymentFacets, type ReconcileEvent, type ReconcileParts, type StagedWrite, type SyncOutcome
} from '../../../../../plugins/core/engine/index.ts'

/*
 * The sweep's own rules (pacing, lease loss, stopping, events raised once, back-offs) through
 * its parts: the due payments and their deferrals in a memory storage; the provider and
 * backends behind the other parts are exercised by the simulator tests beside this file.
 */

interface Harness {
  parts: ReconcileParts
  synced: string[]
  emitted: ReconcileEvent[]
  waits: number[]
  errors: unknown[]
  forgotten: string[]
}

const EPOCH = '1970-01-01T00:00:00.000Z'

/** A payment due since `attentionAt` (the epoch: at the clock's 0). */
const candidate = (id: string, gatewayName = 'paypal', attentionAt = EPOCH): PaymentFacets => ({
  id, gatewayName, status: 'pending', currencyCode: 'EUR', totalAmount: 100, createdAt: EPOCH, updatedAt: EPOCH, providerIds: [], attentionAt, attentionReason: 'pending'
})

/** Stores the payments' facets as a commit would (a write of version 1), in the storage the sweep finds them in. */
function store (storage: MemoryStorage<Payment>, payments: PaymentFacets[]): void {
  for (const facets of payments) storage.apply({ storage, id: facets.id, record: {}, json: '{}', expectedVersion: 0, stamps: {}, facets } as unknown as StagedWrite)
}

function harness (overrides: Partial<ReconcileParts> = {}, candidates: PaymentFacets[] = [candidate('p1')]): Harness {
  const storage = new MemoryStorage(Payment)
  store(storage, candidates)
  const marks = new Set<string>()
  const h: Harness = { synced: [], emitted: [], waits: [], errors: [], forgotten: [], parts: undefined as unknown as ReconcileParts }
  const outcome = (id: string): SyncOutcome => ({ changed: false, state: { status: 'pending' }, payment: { model: 'Payment', id } })
  h.parts = {
    check: () => {},
    due: async (now, limit) => await storage.attentionDue(now, limit),
    defer: async (found, until) => await storage.deferAttention(found.id, until, found),
    canSync: () => true,
    sync: async (found) => { h.synced.push(found.id); return outcome(found.id) },
    lease: async () => ({ renew: async () => true, release: async () => {} }),
    remember: async (key) => {
      if (marks.has(key)) return null
      marks.add(key)
      return { forget: async () => { marks.delete(key); h.forgotten.push(key) } }
    },
    emit: async (event) => { h.emitted.push(event) },
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: (fields) => { h.errors.push(fields) } },
    wait: async (ms) => { h.waits.push(ms) },
    ...overrides
  }
  return h
}

function deferred (): { promise: Promise<void>, resolve: () => void } {
  let resolve = (): void => {}
  const promise = new Promise<void>((_resolve) => { resolve = _resolve })
  return { promise, resolve }
}

t.test('options: defaults, and a clear coded error for each wrong one', async (t) => {
  t.match(reconcileOptions(), { intervalMs: 60_000, batchSize: 100, perSecond: 5, backoffMs: 300_000, backoffMaxMs: 21_600_000, leaseMs: 60_000, expiryWarningMs: 86_400_000 })
  t.equal(reconcileOptions().now, Date.now)
  t.throws(() => reconcileOptions({ batchsize: 10 } as never), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /reconcile\.batchsize.*did you mean batchSize\?/ })
  t.throws(() => reconcileOptions({ perSecond: 0.5 }), { message: /reconcile\.perSecond.*whole number, 1 or more/ })
  t.throws(() => reconcileOptions({ intervalMs: 0 }), { message: /reconcile\.intervalMs/ })
  t.throws(() => reconcileOptions({ batchSize: 501 }), { message: /reconcile\.batchSize.*at most 500/ })
  t.throws(() => reconcileOptions({ backoffMs: 10, backoffMaxMs: 5 }), { message: /reconcile\.backoffMaxMs.*at least backoffMs \(10\)/ })
  t.throws(() => reconcileOptions({ now: 5 } as never), { message: /reconcile\.now.*function/ })
  const sweeper = new ReconcileSweeper(harness().parts, { batchSize: 3 })
  t.equal(sweeper.configure({ batchSize: 7 }).options.batchSize, 7, 'configure() replaces them')
})

t.test('at most batchSize Syncs, paced to perSecond: the n-th waits until n / perSecond seconds into the sweep', async (t) => {
  const h = harness({}, ['a', 'b', 'c', 'd'].map((id) => candidate(id)))
  const sweeper = new ReconcileSweeper(h.parts, { batchSize: 3, perSecond: 1 })
  t.match(await sweeper.sweepOnce(), { leased: true, due: 3, synced: 3, backedOff: 3 }, 'no more read than it may Sync')
  t.same(h.synced, ['a', 'b', 'c'])
  t.equal(h.waits.length, 2, 'none before the first Sync')
  t.ok(h.waits.every((ms, index) => ms > 0 && ms <= (index + 1) * 1000), 'each wait ends at most n seconds in')
})

t.test('a gateway that cannot Sync: skipped and backed off to the longest wait; one whose Sync is refused as busy is left alone', async (t) => {
  let now = 0
  const h = harness({
    canSync: (name) => name !== 'offline',
    sync: async () => { throw new errorCodes.PAYWIRE_ERR_PAYMENT_BUSY() }
  }, [candidate('o1', 'offline'), candidate('p1')])
  const sweeper = new ReconcileSweeper(h.parts, { now: () => now, backoffMs: 10, backoffMaxMs: 100 })
  t.match(await sweeper.sweepOnce(), { due: 2, unsupported: 1, busy: 1, synced: 0, failed: 0 })
  now = 99
  t.match(await sweeper.sweepOnce(), { due: 1, unsupported: 0, busy: 1 }, 'the busy one is tried at the next sweep, the other waits backoffMaxMs')
  now = 100
  t.match(await sweeper.sweepOnce(), { due: 2, unsupported: 1 })
})

t.test('back-offs are kept by the storage: doubling up to backoffMaxMs, known to a new sweeper too', async (t) => {
  let now = 0
  const h = harness()
  const sweeper = (): ReconcileSweeper => new ReconcileSweeper(h.parts, { now: () => now, backoffMs: 10, backoffMaxMs: 35 })
  const looks: number[] = []
  for (; now <= 200; now++) if ((await sweeper().sweepOnce()).synced === 1) looks.push(now)
  t.same(looks, [0, 10, 30, 65, 100, 135, 170], 'waits of 10, 20, then 35 each: each sweep by a new instance')
})

t.test('a payment not deferred (written since it was read, or the storage failed) is looked at again at the next sweep', async (t) => {
  const failing = harness({ defer: async () => { throw new Error('storage down') } })
  const sweeper = new ReconcileSweeper(failing.parts, { now: () => 0 })
  t.match(await sweeper.sweepOnce(), { synced: 1, backedOff: 0 })
  t.match(await sweeper.sweepOnce(), { synced: 1 })
  t.same(failing.synced, ['p1', 'p1'])
  t.same(failing.errors, [], 'a warning, not an error')
  const written = harness({ defer: async () => false })
  t.match(await new ReconcileSweeper(written.parts, { now: () => 0 }).sweepOnce(), { synced: 1, backedOff: 0 })
})

t.test('600 payments backing off do not hide one that becomes due later', async (t) => {
  let now = 0
  const storage = new MemoryStorage(Payment)
  const offline = Array.from({ length: 600 }, (_, index) => candidate(`o${index}`, 'offline'))
  store(storage, [...offline, candidate('late', 'paypal', new Date(1000).toISOString())])
  const h = harness({
    canSync: (name) => name !== 'offline',
    due: async (at, limit) => await storage.attentionDue(at, limit),
    defer: async (found, until) => await storage.deferAttention(found.id, until, found)
  }, [])
  const sweeper = new ReconcileSweeper(h.parts, { now: () => now, batchSize: 500, backoffMs: 10_000, backoffMaxMs: 100_000 })
  t.match(await sweeper.sweepOnce(), { due: 500, unsupported: 500, backedOff: 500 })
  t.match(await sweeper.sweepOnce(), { due: 100, unsupported: 100, backedOff: 100 }, 'the first 500 wait: the other 100 are read')
  now = 1000
  t.match(await sweeper.sweepOnce(), { due: 1, synced: 1, unsupported: 0 }, 'the 600 wait in the storage: the newly due one is read')
  t.same(h.synced, ['late'])
})

t.test('the lease: held elsewhere, nothing happens; lost during a sweep, the sweep ends after the current Sync', async (t) => {
  const none = harness({ lease: async () => null })
  t.same(await new ReconcileSweeper(none.parts).sweepOnce(), {
    leased: false, due: 0, synced: 0, changed: 0, failed: 0, busy: 0, backedOff: 0, unsupported: 0, authorizationsExpiring: 0, mismatches: 0
  })
  t.same(none.synced, [])

  const renewed = deferred()
  let released = 0
  const h = harness({
    lease: async () => ({ renew: async () => { renewed.resolve(); return false }, release: async () => { released++; throw new Error('gone') } }),
    sync: async (found) => {
      // The renewal (every third of leaseMs) finds the lease gone while this Sync runs.
      await renewed.promise
      return { changed: true, state: undefined, payment: { model: 'Payment', id: found.id } }
    }
  }, [candidate('a'), candidate('b')])
  // The renewal timer does not keep the process alive (unref): this test's does, until the sweep ended.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  t.match(await new ReconcileSweeper(h.parts, { leaseMs: 3 }).sweepOnce(), { due: 2, synced: 1, changed: 1 }, 'b is left for the instance that holds the lease now')
  clearInterval(alive)
  t.equal(released, 1, 'released (a failing release is the lease\'s expiry\'s to finish)')
})

t.test('stop() ends a sweep waiting for its next Sync, at once; sweepOnce() joins the sweep in progress', async (t) => {
  const first = deferred()
  const h = harness({
    wait: undefined,
    sync: async (found) => { h.synced.push(found.id); first.resolve(); return { changed: false, state: undefined, payment: { model: 'Payment', id: found.id } } }
  }, [candidate('a'), candidate('b')])
  const sweeper = new ReconcileSweeper(h.parts, { perSecond: 1 })
  const sweep = sweeper.sweepOnce()
  const joined = sweeper.sweepOnce()
  await first.promise
  // One turn of the event loop: the sweep is now in its wait (a real timer, about a second) before b; stop() cuts it short.
  await new Promise<void>((resolve) => { setImmediate(resolve) })
  await sweeper.stop()
  t.match(await sweep, { synced: 1 })
  t.match(await joined, { synced: 1 })
  t.same(h.synced, ['a'])
})

t.test('start(): sweeps every intervalMs until stop(); a failing sweep is logged and the next one runs', async (t) => {
  let leases = 0
  const second = deferred()
  const h = harness({
    lease: async () => {
      leases++
      if (leases === 1) throw new Error('storage down')
      second.resolve()
      return null
    }
  })
  const sweeper = new ReconcileSweeper(h.parts, { intervalMs: 1 })
  t.equal(sweeper.running, false)
  sweeper.start()
  sweeper.start()
  t.equal(sweeper.running, true)
  // The sweeper's timer does not keep the process alive (unref): this test's does, until the second sweep came.
  const alive = setInterval(() => {}, 1000)
  await second.promise
  clearInterval(alive)
  await sweeper.stop()
  t.equal(sweeper.running, false)
  t.match(h.errors, [{ err: { message: 'storage down' } }])
  t.throws(() => new ReconcileSweeper(harness({ check: () => { throw new errorCodes.PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED('Payment') } }).parts).start(),
    { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' })
})

t.test('events: raised once per key; an event the outbox refused is forgotten and raised at the next look', async (t) => {
  let now = Date.parse('2026-12-01T00:00:00Z')
  let failEmit = true
  const state = { status: 'authorized' as const, authorizationExpiresAt: '2026-12-01T12:00:00.000Z', providerIds: { order: 'O-1' } }
  const h = harness({
    sync: async (found) => ({ changed: true, state, payment: { model: 'Payment', id: found.id } }),
    emit: async (event) => {
      if (failEmit) throw new Error('outbox down')
      h.emitted.push(event)
    }
  })
  const sweeper = new ReconcileSweeper(h.parts, { now: () => now })
  t.match(await sweeper.sweepOnce(), { synced: 1, authorizationsExpiring: 0 })
  t.equal(h.forgotten.length, 1, 'the mark is undone')
  t.match(h.errors, [{ err: { message: 'outbox down' }, paywire: { payment: 'p1' } }])
  failEmit = false
  now += 1
  t.match(await sweeper.sweepOnce(), { authorizationsExpiring: 1 })
  t.match(h.emitted, [{ type: 'payment.authorization_expiring', payment: { model: 'Payment', id: 'p1' }, amounts: {}, expiresAt: state.authorizationExpiresAt }])
  t.notOk('number' in (h.emitted[0] as { payment: object }).payment, 'no number stored: none given')
  t.match((h.emitted[0] as { id: string }).id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  t.match(await sweeper.sweepOnce(), { synced: 1, authorizationsExpiring: 0 }, 'the same authorization: not again')
})
