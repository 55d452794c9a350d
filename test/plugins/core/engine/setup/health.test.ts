import t from 'tap'
import {
  Capture, MemoryOutbox, MemoryStorage, MemoryStorageBackend, MemoryTokenStorage, NullLogger, Logger, Payment, PaywireBuilder, StorageBackend, checkHealth,
  type ModelClass, type Outbox, type Storage, type TokenStorage
} from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'

/*
 * Paywire.health() and its checks, on the engine alone: what each status means, how a
 * silent or failing store is reported (bounded by the timeout, with a code and never a
 * message), and that a custom backend without ping() is reported as such.
 */

function shop (t: { teardown: (fn: () => Promise<void>) => void }, backend: StorageBackend = new MemoryStorageBackend()) {
  const paywire = new PaywireBuilder()
    .addGlobalService(Logger, new NullLogger())
    .setStorageBackend(backend)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .setEventDelivery({ retryBaseMs: 1, maxAttempts: 1 })
    .getPaywire()
  t.teardown(() => paywire.close())
  return paywire
}

/** A backend of an application's own, written before ping() existed. */
class LegacyBackend extends StorageBackend {
  createTokenStorage (): TokenStorage {
    return new MemoryTokenStorage()
  }

  createStorage<T extends object> (Model: ModelClass<T>): Storage<T> {
    return new MemoryStorage(Model)
  }
}

/** A backend whose server holds every command: ping() never settles until released. */
class SilentBackend extends MemoryStorageBackend {
  pings = 0
  release: () => void = () => {}

  override async ping (): Promise<void> {
    this.pings++
    await new Promise<void>((resolve) => { this.release = resolve })
  }
}

t.test('memory: ok once delivering; degraded before the dispatcher starts; dead events counted', async (t) => {
  const paywire = shop(t)
  const before = await paywire.health()
  t.match(before, {
    status: 'degraded',
    checkedAt: /^\d{4}-\d\d-\d\dT/,
    checks: { storage: { status: 'ok', backend: 'MemoryStorageBackend' }, events: { status: 'degraded', delivering: false, backlog: 0, dead: 0 } }
  })
  t.type(before.checks.storage.latencyMs, 'number')
  t.same(JSON.parse(JSON.stringify(before)), before, 'the report is plain JSON')

  paywire.on('payment.captured', () => { throw new Error('handler bug') })
  const payment = Object.assign(new Payment(), { gatewayName: 'cash', number: 'DEMO-1', totalAmount: 1999, currencyCode: 'EUR' })
  await paywire.getStorage(Payment).update(payment)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  const waiting = await paywire.health()
  t.match(waiting.checks.events, { backlog: 1, delivering: false }, 'the captured event waits: one payment in the backlog')
  t.ok(waiting.checks.events.oldestDueMs >= 0)

  await paywire.events.drain()
  const after = await paywire.health()
  t.match(after, { status: 'ok', checks: { events: { status: 'ok', delivering: true, backlog: 0, oldestDueMs: 0, dead: 1 } } },
    'a dead event is reported, but does not lower the status: it stays until someone acts on it')
})

t.test('an event due longer than maxEventLagMs: degraded (delivery is stuck), 200 still', async (t) => {
  // The outbox's clock runs two minutes behind: its event looks due since then.
  const outbox = new MemoryOutbox(() => Date.now() - 120_000)
  await outbox.append([{ partition: 'Payment:1', id: 'e1', type: 'payment.captured', json: '{}' }])
  const report = await checkHealth({ backend: new MemoryStorageBackend(), outbox, delivering: () => true }, { maxEventLagMs: 60_000 })
  t.match(report, { status: 'degraded', checks: { storage: { status: 'ok' }, events: { status: 'degraded', backlog: 1 } } })
  t.ok(report.checks.events.oldestDueMs >= 120_000)
  t.equal((await checkHealth({ backend: new MemoryStorageBackend(), outbox, delivering: () => true }, { maxEventLagMs: 10 * 60_000 })).status, 'ok')
})

t.test('a backend that never answers: down within timeoutMs; probes meanwhile share one ping', async (t) => {
  const backend = new SilentBackend()
  const paywire = shop(t, backend)
  paywire.events.start()
  const [first, second] = await Promise.all([paywire.health({ timeoutMs: 50 }), paywire.health({ timeoutMs: 50 })])
  for (const report of [first, second]) {
    t.match(report, { status: 'down', checks: { storage: { status: 'down', backend: 'SilentBackend', error: 'timeout' }, events: { status: 'ok' } } })
  }
  t.equal(backend.pings, 1, 'one ping in flight, however many probes')
  backend.release()
  // Once the held ping has settled (its callbacks run before the next macrotask), the next probe sends a new one, which answers.
  await new Promise((resolve) => setImmediate(resolve))
  const third = paywire.health({ timeoutMs: 1000 })
  while (backend.pings < 2) await new Promise((resolve) => setImmediate(resolve))
  backend.release()
  t.match(await third, { status: 'ok', checks: { storage: { status: 'ok' } } })
})

t.test('a failing store: down with the error\'s code, never its message', async (t) => {
  const secret = 'p4ss-w0rd-canary'
  const failing = Object.assign(new Error(`connect to postgres://shop:${secret}@db failed`), { code: 'ECONNREFUSED' })
  class FailingBackend extends MemoryStorageBackend {
    override async ping (): Promise<void> { throw failing }
  }
  const refusing: Outbox = Object.assign(new MemoryOutbox(), { due: async () => { throw failing } })
  const report = await checkHealth({ backend: new FailingBackend(), outbox: refusing, delivering: () => true })
  t.match(report, {
    status: 'down',
    checks: { storage: { status: 'down', error: 'ECONNREFUSED' }, events: { status: 'down', error: 'ECONNREFUSED', backlog: 0, dead: 0 } }
  })
  t.notMatch(JSON.stringify(report), secret)
  t.notMatch(JSON.stringify(report), 'postgres://')
  const odd = await checkHealth({
    backend: Object.assign(new MemoryStorageBackend(), { ping: async () => { throw new Error(`no code here ${secret}`) } }),
    outbox: new MemoryOutbox(),
    delivering: () => true
  })
  t.match(odd.checks.storage, { status: 'down', error: 'error' }, 'an error without a code is named "error"')
  t.notMatch(JSON.stringify(odd), secret)
})

t.test('a custom backend without ping(): unchecked, and the status is not lowered; an outbox without deadCount() is counted through dead()', async (t) => {
  const outbox = new MemoryOutbox()
  const withoutCount: Outbox = {
    append: outbox.append.bind(outbox),
    due: outbox.due.bind(outbox),
    nextDueAt: outbox.nextDueAt.bind(outbox),
    lease: outbox.lease.bind(outbox),
    head: outbox.head.bind(outbox),
    settle: outbox.settle.bind(outbox),
    release: outbox.release.bind(outbox),
    dead: async () => [{ id: 'e1', partition: 'Payment:1', type: 'payment.captured', json: '{}', attempts: 8, dueAt: 0 }]
  }
  const report = await checkHealth({ backend: new LegacyBackend(), outbox: withoutCount, delivering: () => true })
  t.match(report, { status: 'ok', checks: { storage: { status: 'unchecked', backend: 'LegacyBackend' }, events: { status: 'ok', dead: 1 } } })
  t.equal(report.checks.storage.latencyMs, undefined)
})

t.test('options: a misspelt one is refused with the name meant; numbers above 0 only', async (t) => {
  const paywire = shop(t)
  await t.rejects(paywire.health({ timeout: 300 } as never), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /health\.timeout.*did you mean timeoutMs\?/ })
  await t.rejects(paywire.health({ timeoutMs: 0 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /health\.timeoutMs.*above 0/ })
  await t.rejects(paywire.health({ maxEventLagMs: Number.NaN }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /health\.maxEventLagMs/ })
})
