/*
 * One payment's handler cannot hold back another payment's events (docs/events.md, "In
 * commit order per payment"): a handler that never returns, one that is slower than
 * handlerTimeoutMs, one that throws — on memory, Redis, a Redis Cluster of the file's own
 * (started on first use) and PostgreSQL. Time is never waited
 * for: handlers signal when they are entered, and a deadline only turns a stall into a
 * failure instead of a hung test.
 */
import { randomUUID } from 'node:crypto'
import { Cluster } from 'ioredis'
import t from 'tap'
import {
  Capture, Logger, Payment, PaywireBuilder, Refund, outboxRecord, partitionOf,
  type EventDeliveryOptions, type PaymentEvent, type StorageBackend
} from '../../../../../plugins/core/engine/index.ts'
import { OfflineGatewayFactory } from '../../../../../gateways/offline/index.ts'
import { PostgresStorageBackend } from '../../../../../plugins/postgres/index.ts'
import { RedisStorageBackend } from '../../../../../plugins/redis/index.ts'
import { ownCluster, type OwnCluster } from '../../../../helpers/redis-cluster.ts'
import { testPostgres } from '../../../postgres/fixtures.ts'
import { deferred, testRedis, type Deferred } from '../../../redis/fixtures.ts'

function recordingLogger (): Logger & { lines: Array<[string, any, string?]> } {
  const lines: Array<[string, any, string?]> = []
  const at = (level: string) => (object: unknown, message?: string) => { lines.push([level, object, message]) }
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}

/** Rejects if `promise` has not settled within `ms`: a stalled dispatcher fails the test instead of hanging it. */
async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`stalled: ${what}`)) }, ms) })
  try {
    return await Promise.race([promise, stalled])
  } finally {
    clearTimeout(timer)
  }
}

/** The cluster outlives each test: one start (about a second) for the whole file. */
const file = t
let cluster: OwnCluster | undefined
const backends: Record<string, (t: any) => Promise<StorageBackend | undefined>> = {
  memory: async () => undefined,
  redis: async (t) => {
    const { client, prefix } = await testRedis(t, 'events-isolation')
    return new RedisStorageBackend(client, { keyPrefix: prefix })
  },
  'redis cluster': async (t) => {
    cluster ??= await ownCluster(file)
    const client = new Cluster(cluster.nodes, { redisOptions: { protocol: 2 }, enableAutoPipelining: true })
    t.teardown(() => { client.disconnect() })
    return new RedisStorageBackend(client, { keyPrefix: `events-isolation:${randomUUID()}:` })
  },
  postgres: async (t) => {
    const { pool, schema } = await testPostgres(t, 'events_isolation')
    return new PostgresStorageBackend(pool, { schema })
  }
}

async function shop (t: any, kind: string, delivery: EventDeliveryOptions) {
  const logger = recordingLogger()
  const backend = await (backends[kind] as (t: any) => Promise<StorageBackend | undefined>)(t)
  const builder = new PaywireBuilder()
    .addGlobalService(Logger, logger)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .setEventDelivery({ retryBaseMs: 1, ...delivery })
  if (backend !== undefined) builder.setStorageBackend(backend)
  const paywire = builder.getPaywire()
  // Whatever a test leaves hanging is let go before the storage's own teardown closes it.
  const hung: Array<() => void> = []
  const stop = async () => {
    for (const release of hung) release()
    await paywire.close()
  }
  const newPayment = async (number: string): Promise<Payment> => {
    const payment = Object.assign(paywire.getStorage(Payment).create(), { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
    await paywire.getStorage(Payment).update(payment)
    return payment
  }
  /** A promise that never settles until the test ends. */
  const forever = () => new Promise<void>((resolve) => { hung.push(resolve) })
  const capture = async (payment: Payment) => { await paywire.executeExclusive('cash', payment, (model) => new Capture(model)) }
  return { paywire, logger, stop, newPayment, forever, capture }
}

for (const kind of Object.keys(backends)) {
  t.test(`${kind}: a handler that never returns on payment A holds back neither B's commit nor C's event from another instance`, async (t) => {
    // No timeout and no poll would come to the rescue: B is delivered by its own commit's wake-up, at once.
    const { paywire, stop, newPayment, forever, capture } = await shop(t, kind, { handlerTimeoutMs: 600_000, pollIntervalMs: 20 })
    try {
      const [a, b] = [await newPayment('DEMO-A'), await newPayment('DEMO-B')]
      const enteredA = deferred()
      const heard = new Map<string, Deferred<PaymentEvent>>([[b.id as string, deferred<PaymentEvent>()], ['C', deferred<PaymentEvent>()]])
      let aReturned = false
      paywire.on('payment.captured', async (event) => {
        if (event.payment.id === a.id) {
          enteredA.resolve()
          await forever()
          aReturned = true
          return
        }
        heard.get(event.payment.id)?.resolve(event)
      })
      paywire.events.start()
      await capture(a)
      await within(enteredA.promise, 10_000, 'A\'s handler entered')
      await capture(b)
      t.match(await within((heard.get(b.id as string) as Deferred<PaymentEvent>).promise, 10_000, 'B delivered while A hangs'), { type: 'payment.captured', payment: { id: b.id } })
      // An event another instance committed: no wake-up here, only the next poll (pollIntervalMs) finds it.
      const fromElsewhere = { id: randomUUID(), type: 'payment.captured', payment: { model: 'Payment', id: 'C' } }
      await paywire.events.outbox.append([outboxRecord(fromElsewhere, 'C')])
      t.match(await within((heard.get('C') as Deferred<PaymentEvent>).promise, 10_000, 'C delivered by the poller while A hangs'), { payment: { id: 'C' } })
      t.notOk(aReturned, 'A\'s handler is still inside: B and C did not wait for it')
    } finally {
      await stop()
    }
  })

  t.test(`${kind}: a handler slower than handlerTimeoutMs fails the attempt (warn naming handler and event); the event is retried and delivered once the handler behaves, in order`, async (t) => {
    const { paywire, logger, stop, newPayment, forever, capture } = await shop(t, kind, { handlerTimeoutMs: 50 })
    try {
      const a = await newPayment('DEMO-A-SECRET-NUMBER')
      const attempts: string[] = []
      const done = deferred()
      paywire.on('payment.captured', async function shipOrder (event) {
        attempts.push(event.id)
        // The first attempt never returns; the second does.
        if (attempts.length === 1) await forever()
      })
      const after: string[] = []
      paywire.on('payment.refunded', () => { after.push(`refunded after ${attempts.length} captured attempts`); done.resolve() })
      paywire.events.start()
      await capture(a)
      await paywire.executeExclusive('cash', a, (model) => new Refund(model))
      await within(done.promise, 10_000, 'A\'s events delivered after the timeout')
      t.equal(attempts.length, 2, 'retried once after the timeout')
      t.equal(new Set(attempts).size, 1, 'the same event')
      t.same(after, ['refunded after 2 captured attempts'], 'the payment\'s next event waited for the one before')
      const warnings = logger.lines.filter(([level]) => level === 'warn')
      t.match(warnings, [['warn', { paywire: { event: { id: attempts[0], type: 'payment.captured' }, attempts: 1, handler: /shipOrder/, timeoutMs: 50 } },
        new RegExp(`shipOrder.*payment\\.captured ${attempts[0]}.*50 ms`)]])
      t.notMatch(JSON.stringify(warnings), /DEMO-A-SECRET-NUMBER|1999/, 'no payment data in the line: the event\'s type and id')
      await paywire.events.drain()
      t.same(await paywire.events.dead(), [])
    } finally {
      await stop()
    }
  })

  t.test(`${kind}: a handler that takes its time to throw on payment A: B's events flow meanwhile, A is retried`, async (t) => {
    const { paywire, logger, stop, newPayment, capture } = await shop(t, kind, { handlerTimeoutMs: 600_000, retryBaseMs: 600_000 })
    try {
      const [a, b] = [await newPayment('DEMO-A'), await newPayment('DEMO-B')]
      const entered = deferred()
      const deliveredB = deferred<PaymentEvent>()
      paywire.on('payment.captured', async (event) => {
        if (event.payment.id === a.id) {
          entered.resolve()
          // It fails only once B was delivered, as a call that gives up on its own long after would.
          await deliveredB.promise
          throw new Error('the warehouse is down')
        }
        deliveredB.resolve(event)
      })
      paywire.events.start()
      await capture(a)
      await within(entered.promise, 10_000, 'A\'s handler entered')
      await capture(b)
      t.match(await within(deliveredB.promise, 10_000, 'B delivered while A\'s handler is still failing'), { payment: { id: b.id } })
      await paywire.events.idle()
      t.same(await paywire.events.outbox.due(Number.MAX_SAFE_INTEGER, 10), [partitionOf('Payment', a.id as string)], 'A waits for its retry (retryBaseMs later)')
      t.match(logger.lines.filter(([level]) => level === 'warn'), [['warn', { paywire: { attempts: 1 }, err: { message: 'the warehouse is down' } }, /delivered again later/]])
    } finally {
      await stop()
    }
  })
}
