/*
 * The outbox half of the storage contract (docs/events.md): a commit stores its events with
 * its writes, all or nothing; a payment's events are leased by one dispatcher at a time and
 * delivered in commit order; a crash between commit and dispatch loses nothing. Run by
 * backendContract() on every backend.
 */
import {
  Identity, PaymentStateReader, PaywireEvents, UnitOfWork, describeWrites, partitionOf,
  type HumanStatusValue, type Logger, type Payment, type PaymentEvent, type PaymentState, type StorageBackend
} from '../../plugins/core/engine/index.ts'
import type { BackendUnderTest } from './backend-contract.ts'

/** Reads a payment's status from its clientId field, so tests can set any status. */
class FieldReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState {
    return { status: (record.clientId === '' ? 'new' : record.clientId) as HumanStatusValue, amounts: { captured: 0, refunded: Number(record.description) || 0, reversed: 0 } }
  }
}

const reader = new FieldReader()
const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

function unitFor (under: BackendUnderTest, claim?: any) {
  return new UnitOfWork({
    backend: under.backend,
    tokenStorage: under.tokens,
    claim,
    claimTtlMs: 10_000,
    events: { describe: (writes) => describeWrites(writes, 'cash', () => reader), committed: () => {} }
  })
}

/** Changes a payment's status in a claimed commit, as ExclusiveExecutor does. */
async function setStatus (under: BackendUnderTest, id: string, status: string): Promise<void> {
  const claim = await under.tokens.claimModel(new Identity(id, 'Payment'), 10_000)
  const unit = unitFor(under, claim)
  const copy = await under.payments.find(id) as Payment
  copy.clientId = status
  unit.save(copy, under.payments)
  await unit.commit()
}

function dispatcher (backend: StorageBackend, t: any, options = {}) {
  const events = new PaywireEvents(quiet, { outbox: backend.outbox, retryBaseMs: 1, ...options })
  t.teardown(() => events.close())
  return events
}

async function newPayment (under: BackendUnderTest, number: string): Promise<Payment> {
  const payment = under.payments.create()
  Object.assign(payment, { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
  await under.payments.update(payment)
  return payment
}

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

export function outboxContract (t: Test, make: (t: any) => Promise<BackendUnderTest>): void {
  t.test('contract: a commit stores its events with its writes; a refused commit stores neither', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'EVENTS-1')
    const stale = await under.payments.find(payment.id as string) as Payment
    await setStatus(under, payment.id as string, 'captured')
    // A stale copy loses its compare-and-set: its event must not exist either.
    const unit = unitFor(under)
    stale.clientId = 'canceled'
    unit.save(stale, under.payments)
    await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
    const events = dispatcher(under.backend, t)
    const heard: PaymentEvent[] = []
    events.onAny((event) => { heard.push(event as PaymentEvent) })
    await events.drain()
    t.match(heard, [{ type: 'payment.captured', previousStatus: 'new', status: 'captured', payment: { model: 'Payment', id: payment.id, number: 'EVENTS-1' } }])
    t.equal(heard.length, 1)
  })

  t.test('contract: two dispatchers on one outbox deliver each event once, in commit order per payment (50 concurrent changes)', async (t: any) => {
    const under = await make(t)
    const payments = await Promise.all(Array.from({ length: 10 }, (_, i) => newPayment(under, `MANY-${i}`)))
    const first = dispatcher(under.backend, t)
    const second = dispatcher(under.backend, t)
    const heard: Array<[string, PaymentEvent]> = []
    first.onAny((event) => { heard.push(['first', event as PaymentEvent]) })
    second.onAny((event) => { heard.push(['second', event as PaymentEvent]) })
    first.start()
    second.start()
    const steps = ['pending', 'authorized', 'captured', 'suspended', 'refunded']
    // Each payment moves through 5 statuses, all payments at once: 50 commits.
    await Promise.all(payments.map(async (payment) => {
      for (const status of steps) await setStatus(under, payment.id as string, status)
    }))
    await Promise.all([first.drain(), second.drain()])
    t.equal(heard.length, 50, 'every change once, whichever instance delivered it')
    t.equal(new Set(heard.map(([, event]) => event.id)).size, 50)
    for (const payment of payments) {
      t.same(heard.filter(([, event]) => event.payment.id === payment.id).map(([, event]) => event.status), steps, `${payment.number} in commit order`)
    }
  })

  t.test('contract: committed but never dispatched (the process died) → delivered by the next dispatcher', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'CRASH-1')
    const crashed = dispatcher(under.backend, t, { leaseMs: 50 })
    crashed.on('payment.captured', () => { throw new Error('never reached') })
    await setStatus(under, payment.id as string, 'captured')
    // It dies holding the payment's lease, before delivering: nothing is released.
    t.ok(await under.backend.outbox.lease((await under.backend.outbox.due(Date.now(), 100))[0] as string, 50))
    await crashed.close()
    const restarted = dispatcher(under.backend, t)
    const heard: PaymentEvent[] = []
    restarted.on('payment.captured', (event) => { heard.push(event) })
    await restarted.drain()
    t.match(heard, [{ type: 'payment.captured', payment: { id: payment.id } }], 'delivered once the dead instance\'s lease expired')
  })

  t.test('contract: a throwing handler gets the same event again; after maxAttempts it is dead and the payment\'s next event goes on', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'RETRY-1')
    const events = dispatcher(under.backend, t, { maxAttempts: 3 })
    const tries: string[] = []
    const refunds: string[] = []
    events.on('payment.captured', (event) => {
      tries.push(event.id)
      throw new Error('warehouse down')
    })
    events.on('payment.refunded', (event) => { refunds.push(event.id) })
    await setStatus(under, payment.id as string, 'captured')
    await setStatus(under, payment.id as string, 'refunded')
    await events.drain()
    t.equal(tries.length, 3)
    t.equal(new Set(tries).size, 1, 'the same event id every time')
    t.equal(refunds.length, 1, 'delivered after the dead one, not before')
    t.match(await events.dead(), [{ id: tries[0], attempts: 3, lastError: 'warehouse down', event: { type: 'payment.captured', payment: { id: payment.id } } }])
  })

  t.test('contract: a lease is held by one dispatcher; a settle under a lost lease changes nothing', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'LEASE-1')
    await setStatus(under, payment.id as string, 'captured')
    const { outbox } = under.backend
    const [partition] = await outbox.due(Date.now(), 100)
    const lease = await outbox.lease(partition as string, 10_000)
    t.ok(lease)
    t.equal(await outbox.lease(partition as string, 10_000), null, 'one holder at a time')
    const head = await outbox.head(lease!)
    t.match(head, { type: 'payment.captured', attempts: 0 })
    t.equal(await outbox.settle({ partition: partition as string, id: 'not-mine' }, head!, { outcome: 'delivered' }), false)
    t.equal(await outbox.settle(lease!, head!, { outcome: 'delivered' }), true)
    t.equal(await outbox.head(lease!), null)
    await outbox.release(lease!)
    t.same(await outbox.due(Date.now(), 100), [], 'nothing due once delivered: delivered events are not kept')
  })

  t.test('contract: one event at a time, a retry stays the head with its attempt counted; a dead one is parked and the next is the head', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'EACH-1')
    for (const status of ['pending', 'captured']) await setStatus(under, payment.id as string, status)
    const { outbox } = under.backend
    const lease = await outbox.lease(partitionOf('Payment', payment.id as string), 10_000)
    const head = await outbox.head(lease!)
    t.equal(await outbox.settle(lease!, head!, { outcome: 'retry', dueAt: Date.now() - 1, error: 'try later' }), true)
    const retried = await outbox.head(lease!)
    t.match(retried, { id: head!.id, attempts: 1, lastError: 'try later' })
    t.equal(await outbox.settle(lease!, retried!, { outcome: 'dead', error: 'warehouse down' }), true)
    t.match(await outbox.dead(), [{ id: head!.id, attempts: 2, lastError: 'warehouse down' }])
    const next = await outbox.head(lease!)
    t.equal(JSON.parse(next!.json).status, 'captured', 'the next event is the head')
    // Delivered, so the outbox is left as found (the backends under test may share it between tests).
    t.equal(await outbox.settle(lease!, next!, { outcome: 'delivered' }), true)
    await outbox.release(lease!)
  })

  t.test('contract: a batch is leased with its events head first and settled whole with its release; under a lost lease nothing changes', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'BATCH-1')
    for (const status of ['pending', 'authorized', 'captured']) await setStatus(under, payment.id as string, status)
    const { outbox } = under.backend
    // Optional in the interface (outboxes written before batches), required of every shipped backend.
    if (outbox.leaseBatch === undefined || outbox.settleBatch === undefined) throw new Error('the backend\'s outbox does not deliver in batches')
    const partition = partitionOf('Payment', payment.id as string)
    const batch = await outbox.leaseBatch(partition, 10_000, 10)
    t.match(batch?.entries.map((entry) => JSON.parse(entry.json).status), ['pending', 'authorized', 'captured'], 'every waiting event, in commit order')
    t.equal(await outbox.leaseBatch(partition, 10_000, 10), null, 'one holder at a time')
    const [first, second, third] = batch!.entries as [any, any, any]
    const settled = [
      { entry: first, settlement: { outcome: 'delivered' as const } },
      { entry: second, settlement: { outcome: 'dead' as const, error: 'warehouse down' } },
      { entry: third, settlement: { outcome: 'retry' as const, dueAt: Date.now() - 1, error: 'try later' } }
    ]
    t.equal(await outbox.settleBatch({ partition, id: 'not-mine' }, settled), false, 'refused under a lease it does not hold')
    t.same((await outbox.head(batch!.lease))?.id, first.id, 'nothing changed')
    t.equal(await outbox.settleBatch(batch!.lease, settled), true)
    t.match(await outbox.dead(), [{ id: second.id, attempts: 1, lastError: 'warehouse down' }], 'the dead one parked')
    const again = await outbox.leaseBatch(partition, 10_000, 1)
    t.ok(again, 'released with the settle')
    t.match(again!.entries, [{ id: third.id, attempts: 1, lastError: 'try later' }], 'the retried one is the head, its attempt counted')
    t.same(await outbox.due(Date.now(), 100), [partition], 'due again when its retry is')
    t.equal(await outbox.settleBatch(again!.lease, []), true, 'an empty settle only releases')
    const last = await outbox.leaseBatch(partition, 10_000, 10)
    t.equal(await outbox.settleBatch(last!.lease, [{ entry: last!.entries[0]!, settlement: { outcome: 'delivered' } }]), true)
    t.same(await outbox.due(Date.now(), 100), [], 'nothing due once the last is delivered')
    t.same((await outbox.leaseBatch(partition, 10_000, 10))?.entries, [], 'a lease on an empty partition reads no event')
  })

  t.test('contract: a pass leases every free due partition with its first events in one step (leaseDue, where the backend has it)', async (t: any) => {
    const under = await make(t)
    const { outbox } = under.backend
    if (outbox.leaseDue === undefined) {
      // A Redis Cluster: its due marks can be lost, so its dispatcher leases partition by partition.
      t.equal(under.backend.outbox.leaseBatch !== undefined, true, 'delivered in batches all the same')
      return
    }
    const [one, two, held] = await Promise.all(['DUE-1', 'DUE-2', 'DUE-3'].map(async (number) => await newPayment(under, number)))
    for (const status of ['pending', 'captured']) await setStatus(under, one!.id as string, status)
    await setStatus(under, two!.id as string, 'authorized')
    await setStatus(under, held!.id as string, 'captured')
    const partition = (payment: Payment) => partitionOf('Payment', payment.id as string)
    const other = await outbox.leaseBatch!(partition(held!), 10_000, 10)
    t.ok(other, 'another dispatcher holds one payment')
    // A partition with no event the due index never heard of: this process's own commit named it.
    const quiet = partition(await newPayment(under, 'DUE-4'))
    const options = { scan: 10, limit: 10, include: [quiet], ttlMs: 10_000, batch: 10 }
    const found = await outbox.leaseDue(Date.now(), options)
    const byPartition = new Map(found.batches.map((batch) => [batch.lease.partition, batch]))
    t.same([...byPartition.keys()].sort(), [partition(one!), partition(two!), quiet].sort(), 'every due partition nobody holds, and the one named')
    t.equal(found.more, false, 'the due index held no more than it read')
    t.same(byPartition.get(partition(one!))?.entries.map((entry) => JSON.parse(entry.json).status), ['pending', 'captured'], 'each with its events in commit order')
    t.same(byPartition.get(quiet)?.entries, [], 'an empty partition: leased, no event')
    t.same((await outbox.leaseDue(Date.now(), options)).batches, [], 'leased ones are held: a second pass takes nothing')
    t.equal(await outbox.leaseBatch!(partition(two!), 10_000, 10), null, 'one holder at a time')
    for (const batch of found.batches) {
      t.equal(await outbox.settleBatch!(batch.lease, batch.entries.map((entry) => ({ entry, settlement: { outcome: 'delivered' as const } }))), true, 'settled under the pass\'s lease')
    }
    t.equal(await outbox.settleBatch!(other!.lease, []), true)
    const narrow = await outbox.leaseDue(Date.now(), { ...options, scan: 1, limit: 1, include: [] })
    t.same(narrow.batches.map((batch) => batch.lease.partition), [partition(held!)], 'what is still due, at most `limit`')
    t.same(narrow.batches[0]?.entries.map((entry) => JSON.parse(entry.json).status), ['captured'])
    t.equal(narrow.more, true, 'read as many as it was allowed to: there may be more')
    // Backends under test may share one outbox between tests: nothing of this one is left behind.
    t.equal(await outbox.settleBatch!(narrow.batches[0]!.lease, narrow.batches[0]!.entries.map((entry) => ({ entry, settlement: { outcome: 'delivered' as const } }))), true)
  })

  t.test('contract: a dispatcher renews its lease while a payment\'s slow handlers run: no other dispatcher takes the batch', async (t: any) => {
    const under = await make(t)
    const payment = await newPayment(under, 'SLOW-1')
    const { outbox } = under.backend
    // Renewed every 300 ms: only a dispatcher stalled for 600 ms (a loaded machine) would lose it.
    const LEASE_MS = 900
    // The renewals' and the pollers' timers do not keep a process alive (a server does): the test must.
    const alive = setInterval(() => {}, 1000)
    t.teardown(() => clearInterval(alive))
    // A hook on the outbox's renewals: the handlers wait for them, not for the clock.
    // Optional in the interface (outboxes written before it), required of every shipped backend.
    if (outbox.renew === undefined) throw new Error('the backend\'s outbox does not renew leases')
    const renew = outbox.renew.bind(outbox)
    let renewals = 0
    let lost = false
    let renewed = () => {}
    outbox.renew = async (lease, ttlMs) => {
      const held = await renew(lease, ttlMs)
      if (held) renewals++
      else lost = true
      renewed()
      return held
    }
    t.teardown(() => { outbox.renew = renew })
    const slow = dispatcher(under.backend, t, { leaseMs: LEASE_MS, handlerTimeoutMs: 10_000 })
    // Another instance, polling often: it takes the payment's events as soon as the lease lapses.
    const other = dispatcher(under.backend, t, { leaseMs: LEASE_MS, pollIntervalMs: 10 })
    const heard: Array<[string, string]> = []
    let entered = () => {}
    const inHandler = new Promise<void>((resolve) => { entered = resolve })
    let taken: unknown = 'not asked'
    slow.onAny(async (event) => {
      heard.push(['slow', event.type])
      entered()
      // Two renewals per event, a third of the lease apart: the two events together outlast the lease.
      const until = heard.length * 2
      for (;;) {
        if (renewals >= until || lost) break
        await new Promise<void>((resolve) => { renewed = resolve })
      }
      if (heard.length === 2) taken = await outbox.lease(partitionOf('Payment', payment.id as string), 10_000)
    })
    other.onAny((event) => { heard.push(['other', event.type]) })
    await setStatus(under, payment.id as string, 'captured')
    await setStatus(under, payment.id as string, 'refunded')
    slow.start()
    await inHandler
    other.start()
    await slow.drain()
    await other.drain()
    t.same(heard, [['slow', 'payment.captured'], ['slow', 'payment.refunded']], 'both events by the dispatcher that held the lease, once, in order')
    t.equal(lost, false, 'no renewal found the lease lost')
    t.ok(renewals >= 4, `renewed ${renewals} times (about ${Math.round(renewals * LEASE_MS / 3)} ms of handlers, lease ${LEASE_MS} ms)`)
    t.equal(taken, null, 'the lease was still held when another dispatcher asked for it, long after it would have lapsed')
  })

  t.test('contract: events outside a commit (money.unmatched) are stored and delivered like the others', async (t: any) => {
    const under = await make(t)
    const events = dispatcher(under.backend, t)
    const heard: unknown[] = []
    events.on('money.unmatched', (event) => { heard.push(event) })
    await events.emit('money.unmatched', { gateway: 'paypal', provider: 'PayPal', eventId: 'WH-1', resourceIds: { sale: 'S-1' } })
    await events.drain()
    t.match(heard, [{ type: 'money.unmatched', eventId: 'WH-1', resourceIds: { sale: 'S-1' } }])
  })
}
