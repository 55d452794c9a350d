import Fastify from 'fastify'
import t from 'tap'
import {
  Cancel, Capture, Logger, MemoryOutbox, MemoryStorage, Payment, PaymentStateReader, PaywireBuilder, PaywireEvents, Refund, classify, describeWrites, eventsOf, outboxRecord, partitionOf,
  type AnyPaywireEvent, type Outbox, type EventDeliveryOptions, type HumanStatusValue, type PaymentEvent, type PaymentState
} from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'
import { paywire } from '../../../../../plugins/core/index.ts'

function recordingLogger (): Logger & { lines: Array<[string, any, string?]> } {
  const lines: Array<[string, any, string?]> = []
  const at = (level: string) => (object: unknown, message?: string) => { lines.push([level, object, message]) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

function shop (t: any, delivery: EventDeliveryOptions = {}) {
  const logger = recordingLogger()
  const paywire = new PaywireBuilder()
    .addGlobalService(Logger, logger)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .setEventDelivery({ retryBaseMs: 1, ...delivery })
    .getPaywire()
  t.teardown(() => paywire.close())
  return { paywire, logger }
}

async function newPayment (paywire: ReturnType<typeof shop>['paywire'], number = 'DEMO-1'): Promise<Payment> {
  const payment = new Payment()
  Object.assign(payment, { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
  await paywire.getStorage(Payment).update(payment)
  return payment
}

t.test('a committed capture and refund each make one event with the payment, statuses, amounts and a unique id', async (t) => {
  const { paywire } = shop(t)
  const heard: AnyPaywireEvent[] = []
  paywire.onAny((event) => { heard.push(event) })
  const captured: PaymentEvent[] = []
  paywire.on('payment.captured', (event) => { captured.push(event) })
  const payment = await newPayment(paywire)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  await paywire.executeExclusive('cash', payment, (model) => new Refund(model, { amount: 500 }))
  await paywire.executeExclusive('cash', payment, (model) => new Refund(model, { amount: 500 }))
  await paywire.events.drain()
  t.match(captured, [{
    type: 'payment.captured',
    gateway: 'cash',
    payment: { model: 'Payment', id: payment.id, number: 'DEMO-1' },
    previousStatus: 'new',
    status: 'captured',
    amounts: { total: 1999, currency: 'EUR', captured: 1999, refunded: 0, reversed: 0 },
    occurredAt: /^\d{4}-\d\d-\d\dT/
  }])
  t.same(heard.map((event) => event.type), ['payment.captured', 'payment.refunded', 'payment.refunded'],
    'a second partial refund is an event though the status stays refunded')
  t.match(heard[2], { previousStatus: 'refunded', status: 'refunded', amounts: { refunded: 1000 } })
  t.equal(new Set(heard.map((event) => event.id)).size, 3, 'every event has its own id')
})

t.test('a write that changes no status and moves no money makes no event; off() unsubscribes', async (t) => {
  const { paywire } = shop(t)
  const heard: string[] = []
  const handler = (event: AnyPaywireEvent) => { heard.push(event.type) }
  paywire.on('*', handler)
  const payment = await newPayment(paywire)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  await paywire.executeExclusive('cash', payment, (model) => new Cancel(model))
  await paywire.events.drain()
  t.same(heard, ['payment.captured'], 'a cancel of a captured payment changes nothing')
  paywire.off('*', handler)
  await paywire.executeExclusive('cash', payment, (model) => new Refund(model))
  await paywire.events.drain()
  t.same(heard, ['payment.captured'])
})

t.test('a handler that throws gets the same event again, with backoff, until it succeeds', async (t) => {
  const { paywire, logger } = shop(t)
  const seen: string[] = []
  paywire.on('payment.captured', (event) => {
    seen.push(event.id)
    if (seen.length < 3) throw new Error('the warehouse is down')
  })
  const payment = await newPayment(paywire)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  await paywire.events.drain()
  t.equal(seen.length, 3)
  t.equal(new Set(seen).size, 1, 'redelivered with the same event id, so a handler can deduplicate')
  t.match(logger.lines.filter(([level]) => level === 'warn'), [
    ['warn', { paywire: { event: { id: seen[0], type: 'payment.captured' }, attempts: 1 }, err: { message: 'the warehouse is down' } }],
    ['warn', { paywire: { attempts: 2 } }]
  ])
  t.same(await paywire.events.dead(), [])
})

t.test('after maxAttempts an event is parked as dead, logged at error and inspectable; the payment\'s next events go on', async (t) => {
  const { paywire, logger } = shop(t, { maxAttempts: 2 })
  const delivered: string[] = []
  paywire.on('payment.captured', () => { throw new Error('handler bug') })
  paywire.on('payment.refunded', (event) => { delivered.push(event.type) })
  const payment = await newPayment(paywire)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  await paywire.executeExclusive('cash', payment, (model) => new Refund(model))
  await paywire.events.drain()
  const dead = await paywire.events.dead()
  t.match(dead, [{ attempts: 2, lastError: 'handler bug', event: { type: 'payment.captured', payment: { id: payment.id } } }])
  t.match(logger.lines.filter(([level]) => level === 'error'), [['error', { paywire: { event: { type: 'payment.captured' }, attempts: 2 } }, /parked as dead/]])
  t.same(delivered, ['payment.refunded'])
})

t.test('50 concurrent status changes: 50 events, each delivered once, in commit order per payment', async (t) => {
  const { paywire } = shop(t)
  const payments = await Promise.all(Array.from({ length: 25 }, (_, i) => newPayment(paywire, `DEMO-${i}`)))
  const heard: PaymentEvent[] = []
  paywire.onAny((event) => { heard.push(event as PaymentEvent) })
  paywire.events.start()
  // Every payment is captured then refunded, all at once: 50 commits racing the dispatcher.
  await Promise.all(payments.map(async (payment) => {
    await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
    await paywire.executeExclusive('cash', payment, (model) => new Refund(model))
  }))
  await paywire.events.drain()
  t.equal(heard.length, 50)
  t.equal(new Set(heard.map((event) => event.id)).size, 50, 'each once')
  for (const payment of payments) {
    t.same(heard.filter((event) => event.payment.id === payment.id).map((event) => event.type), ['payment.captured', 'payment.refunded'])
  }
})

t.test('close() stops delivery: events committed meanwhile stay in the outbox', async (t) => {
  const { paywire } = shop(t)
  const payment = await newPayment(paywire)
  paywire.events.start()
  await paywire.events.close()
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  t.not(await paywire.events.outbox.nextDueAt(), null, 'kept for whoever delivers next (on a shared storage: another instance, or this one after a restart)')
})

t.test('delivery options are checked: a wrong one is a coded error naming it', async (t) => {
  t.throws(() => new PaywireBuilder().setEventDelivery({ retryBaseMs: -1 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /events\.retryBaseMs/ })
  t.throws(() => new PaywireBuilder().setEventDelivery({ leaseMs: 1.5 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /events\.leaseMs/ })
})

t.test('handlerTimeoutMs and recoverIntervalMs are checked like the others; a misspelt option names the one meant, from the builder and the plugin', async (t) => {
  t.throws(() => new PaywireBuilder().setEventDelivery({ handlerTimeoutMs: 0 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /events\.handlerTimeoutMs/ })
  t.throws(() => new PaywireBuilder().setEventDelivery({ recoverIntervalMs: 2.5 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /events\.recoverIntervalMs/ })
  t.throws(() => new PaywireBuilder().setEventDelivery({ handlerTimeout: 50 } as EventDeliveryOptions),
    { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"events\.handlerTimeout".*did you mean handlerTimeoutMs\?/ })
  for (const [events, message] of [
    [{ handlerTimeout: 50 }, /"events\.handlerTimeout".*did you mean handlerTimeoutMs\?/],
    [{ handlerTimeoutMs: 0 }, /"events\.handlerTimeoutMs"/]
  ] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.register(paywire, { events: events as EventDeliveryOptions })
    await t.rejects(async () => { await app.ready() }, { code: 'PAYWIRE_ERR_INVALID_OPTION', message })
  }
})

t.test('a handler slower than closeTimeoutMs does not hold close() forever; its event stays for the next instance', async (t) => {
  const { paywire } = shop(t, { closeTimeoutMs: 0 })
  let entered!: () => void
  const inside = new Promise<void>((resolve) => { entered = resolve })
  paywire.on('payment.captured', () => {
    entered()
    return new Promise<void>(() => {})
  })
  const payment = await newPayment(paywire)
  paywire.events.start()
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  await inside
  await paywire.events.close()
  t.not(await paywire.events.outbox.nextDueAt(), null, 'not delivered: it stays in the outbox')
})

t.test('the outbox failing (a storage outage) is logged; the next pass delivers', async (t) => {
  let failures = 2
  const flaky = new (class extends MemoryOutbox {
    override async due (now: number, limit: number): Promise<string[]> {
      if (failures-- > 0) throw new Error('storage unavailable')
      return await super.due(now, limit)
    }
  })()
  const logger = recordingLogger()
  const events = new PaywireEvents(logger, { outbox: flaky })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.onAny((event) => { heard.push(event.type) })
  await events.emit('money.unmatched', { gateway: 'paypal', provider: 'PayPal', resourceIds: {} })
  await events.drain()
  t.same(heard, ['money.unmatched'])
  t.match(logger.lines.filter(([level]) => level === 'error'), [['error', { err: { message: 'storage unavailable' } }, /outbox failed/]])
})

t.test('describeWrites: which writes make events, and what they carry', async (t) => {
  const reader = new (class extends PaymentStateReader {
    read (record: Record<string, unknown>): PaymentState | undefined {
      return typeof record.status === 'string' ? { status: record.status as HumanStatusValue } : undefined
    }
  })()
  const storage = new MemoryStorage(Payment)
  const write = (record: Record<string, unknown> | null, previous: Record<string, unknown> | null = null) =>
    ({ storage, id: 'P-1', record, json: null, expectedVersion: 1, stamps: {}, previous }) as any
  const none = () => undefined
  t.same(describeWrites([write(null)], 'cash', () => reader), [], 'a delete makes none')
  t.same(describeWrites([write({ status: 'captured' })], undefined, () => reader), [], 'no gateway to read it with')
  t.same(describeWrites([write({ status: 'captured' })], 'cash', none), [], 'a gateway without a reader')
  t.same(describeWrites([write({ other: true })], 'cash', () => reader), [], 'a record the reader does not know')
  const [unknown] = describeWrites([write({ status: 'unknown' }, { other: true })], 'cash', () => reader)
  t.match(JSON.parse(unknown?.json as string), { type: 'payment.status_changed', previousStatus: 'new', status: 'unknown', amounts: { captured: 0 }, payment: { model: 'Payment', id: 'P-1' } })
  t.notOk('number' in JSON.parse(unknown?.json as string).payment, 'no number when the record has none')
  t.same(describeWrites([write({ status: 'captured' }, { status: 'captured' })], 'cash', () => reader), [], 'the same status, no money moved')
  t.equal(classify({ status: 'captured', amounts: { captured: 5, refunded: 0, reversed: 0 } }, { status: 'refunded', amounts: { captured: 5, refunded: 0, reversed: 5 } }), 'payment.reversed')
})

t.test('eventsOf: a dispute opened and closed is an event each, beside the money it moved', async (t) => {
  const money = (reversed: number) => ({ captured: 1000, refunded: 0, reversed })
  const captured = { status: 'captured' as const, amounts: money(0) }
  const open = { id: 'DP-1', state: 'open' as const, amount: 1000, reason: 'fraudulent' }
  const disputed = { status: 'suspended' as const, amounts: money(0), disputes: [open] }
  t.same(eventsOf(captured, disputed), [{ type: 'payment.disputed', dispute: open }], 'the suspension is the dispute\'s own event')
  t.same(eventsOf(disputed, disputed), [], 'a dispute seen again is no news')
  const won = { ...open, state: 'won' as const }
  t.same(eventsOf(disputed, { status: 'captured', amounts: money(0), disputes: [won] }), [{ type: 'payment.dispute_resolved', dispute: won }])
  const lost = { ...open, state: 'lost' as const }
  t.same(eventsOf(disputed, { status: 'refunded', amounts: money(1000), disputes: [lost] }),
    [{ type: 'payment.dispute_resolved', dispute: lost }, { type: 'payment.reversed' }], 'a lost dispute also took the money back')
  t.same(eventsOf(captured, { status: 'captured', amounts: money(0), disputes: [won] }), [], 'a dispute first seen already closed changed nothing the shop acts on')
  const second = { id: 'DP-2', state: 'open' as const }
  t.same(eventsOf({ ...disputed, disputes: [won] }, { status: 'suspended', amounts: money(0), disputes: [won, second] }), [{ type: 'payment.disputed', dispute: second }])

  const reader = new (class extends PaymentStateReader {
    read (record: Record<string, unknown>): PaymentState | undefined {
      return record.state as PaymentState
    }
  })()
  const storage = new MemoryStorage(Payment)
  const write = { storage, id: 'P-9', record: { state: { status: 'refunded', amounts: money(1000), disputes: [lost] } }, json: null, expectedVersion: 2, stamps: {}, previous: { state: disputed } } as any
  const events = describeWrites([write], 'cash', () => reader).map((record) => JSON.parse(record.json))
  t.match(events, [
    { type: 'payment.dispute_resolved', dispute: { id: 'DP-1', state: 'lost', amount: 1000, reason: 'fraudulent' }, previousStatus: 'suspended', status: 'refunded' },
    { type: 'payment.reversed', amounts: { reversed: 1000 } }
  ])
  t.notOk('dispute' in events[1], 'only dispute events carry a dispute')
  t.not(events[0].id, events[1].id)
})

t.test('a lease renewal the storage fails is tried again at the next tick: the slow handler keeps its payment\'s lease', async (t) => {
  const outbox = new MemoryOutbox()
  const calls: string[] = []
  let renewed = () => {}
  const renew = outbox.renew.bind(outbox)
  outbox.renew = async (lease, ttlMs) => {
    try {
      // The first renewal meets a storage that is down.
      if (calls.length === 0) throw new Error('storage down')
      const held = await renew(lease, ttlMs)
      calls.push(held ? 'renewed' : 'lost')
      return held
    } catch (error) {
      calls.push('failed')
      throw error
    } finally {
      renewed()
    }
  }
  const logger = recordingLogger()
  const events = new PaywireEvents(logger, { outbox, leaseMs: 600, handlerTimeoutMs: 10_000 })
  t.teardown(() => events.close())
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(alive))
  let taken: unknown
  events.on('money.unmatched', async () => {
    // Four ticks, 200 ms apart: the lease (600 ms) would have lapsed without the later ones.
    while (calls.length < 4) await new Promise<void>((resolve) => { renewed = resolve })
    taken = await outbox.lease((await outbox.due(Date.now(), 10))[0] as string, 10_000)
  })
  await events.emit('money.unmatched', { gateway: 'paypal', provider: 'PayPal', resourceIds: { sale: 'S-1' } })
  await events.drain()
  t.same(calls.slice(0, 4), ['failed', 'renewed', 'renewed', 'renewed'])
  t.equal(taken, null, 'still held by the dispatcher')
  t.same(await outbox.dead(), [], 'delivered, not failed')
  t.same(logger.lines.filter(([level]) => level !== 'debug'), [], 'nothing logged: the lease is the dispatcher\'s business')
})

t.test('an outbox without renew() or batches (written before they existed) still delivers, one event at a time: no renewal timer, a failed lease release left to expire', async (t) => {
  const memory = new MemoryOutbox()
  const outbox: Outbox = {
    append: (records) => memory.append(records),
    due: (now, limit) => memory.due(now, limit),
    nextDueAt: () => memory.nextDueAt(),
    lease: (partition, ttlMs) => memory.lease(partition, ttlMs),
    head: (lease) => memory.head(lease),
    settle: (lease, entry, settlement) => memory.settle(lease, entry, settlement),
    release: async () => { throw new Error('storage unavailable') },
    dead: () => memory.dead()
  }
  const events = new PaywireEvents(recordingLogger(), { outbox, leaseMs: 600, handlerTimeoutMs: 10_000 })
  t.teardown(() => events.close())
  const seen: unknown[] = []
  const ids: string[] = []
  events.on('money.unmatched', async (event) => {
    seen.push(event.resourceIds)
    ids.push(event.id)
  })
  await events.emit('money.unmatched', { gateway: 'paypal', provider: 'PayPal', resourceIds: { sale: 'S-2' } })
  await events.drain()
  t.same(seen, [{ sale: 'S-2' }])
  t.same(await memory.dead(), [])
  t.equal(await memory.nextDueAt(), null, 'settled one by one')
  t.equal(await memory.lease(partitionOf('money.unmatched', ids[0] as string), 10_000), null, 'its release failed: the lease is left to expire')
})

/** A money.unmatched event numbered n, all in partition P: one payment's worth of events. */
const numbered = (n: number) => {
  const event = { id: `E-${n}`, type: 'money.unmatched', occurredAt: '', gateway: 'cash', provider: 'Cash', resourceIds: { n: String(n) } }
  return outboxRecord(event, 'P')
}

t.test('a partition with more events than a batch: leased, delivered and settled batch after batch, in order', async (t) => {
  const outbox = new MemoryOutbox()
  const batches: number[] = []
  const leaseBatch = outbox.leaseBatch.bind(outbox)
  outbox.leaseBatch = async (partition, ttlMs, limit) => {
    const batch = await leaseBatch(partition, ttlMs, limit)
    batches.push(batch?.entries.length ?? -1)
    return batch
  }
  await outbox.append(Array.from({ length: 120 }, (_, n) => numbered(n)))
  const events = new PaywireEvents(recordingLogger(), { outbox })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.on('money.unmatched', (event) => { heard.push(event.resourceIds.n as string) })
  await events.drain()
  t.same(heard, Array.from({ length: 120 }, (_, n) => String(n)), 'each once, in order')
  t.same(batches, [50, 50, 20], 'three batches, not 120 leases')
})

t.test('closed while a batch runs: what was delivered is settled, the rest waits in the outbox', async (t) => {
  const outbox = new MemoryOutbox()
  await outbox.append([numbered(1), numbered(2), numbered(3)])
  const events = new PaywireEvents(recordingLogger(), { outbox })
  const heard: string[] = []
  let closing: Promise<void> | undefined
  events.onAny((event) => {
    heard.push(event.id)
    // Shutting down from inside the first handler: the batch stops after it.
    closing ??= events.close()
  })
  events.start()
  await closing
  await events.idle()
  t.same(heard, ['E-1'])
  const lease = await outbox.lease('P', 10_000)
  t.ok(lease, 'released')
  t.match(await outbox.head(lease!), { id: 'E-2', attempts: 0 }, 'the first settled, the others untouched')
})

t.test('a payment woken while its head waits for a retry: leased, left alone, released', async (t) => {
  const outbox = new MemoryOutbox()
  await outbox.append([numbered(1)])
  const events = new PaywireEvents(recordingLogger(), { outbox, retryBaseMs: 60_000 })
  t.teardown(() => events.close())
  let calls = 0
  events.onAny(() => {
    calls++
    throw new Error('warehouse down')
  })
  events.start()
  await events.idle()
  t.equal(calls, 1)
  // As a commit of this process names its payment.
  events.wake(['P'])
  await events.idle()
  t.equal(calls, 1, 'not delivered again before its retry is due')
  t.ok(await outbox.lease('P', 10_000), 'the lease was released')
  t.ok((await outbox.nextDueAt() as number) > Date.now() + 30_000, 'still waiting for its retry')
})
