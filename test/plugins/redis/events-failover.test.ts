/*
 * Events whose due mark a Redis Cluster failover lost (docs/events.md, "Redis Cluster"), on
 * a cluster of the test's own: the instance that committed them delivers them at once
 * anyway, and an instance that did not finds them within recoverIntervalMs — not after the
 * five minutes of the default scan. The {outbox} node being unreachable is played by a due
 * mark that fails, as ioredis reports it during a failover, and then for real by killing
 * that master on a cluster of the test's own.
 */
import { randomUUID } from 'node:crypto'
import { Cluster, type Redis } from 'ioredis'
import t from 'tap'
import { OfflineGatewayFactory } from '../../../gateways/offline/index.ts'
import {
  Capture, Logger, Payment, PaywireBuilder, PaywireEvents, outboxRecord, partitionOf, type PaymentEvent
} from '../../../plugins/core/index.ts'
import { RedisOutbox, RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { ownCluster } from '../../helpers/redis-cluster.ts'
import { deferred } from './fixtures.ts'

const cluster = await ownCluster(t)
const client = new Cluster(cluster.nodes, { redisOptions: { protocol: 2 }, enableAutoPipelining: true })
t.teardown(() => client.disconnect())
const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

/** Its due marks never reach the {outbox} slot, as while that slot's master fails over. */
class UnmarkedOutbox extends RedisOutbox {
  recovered = 0

  override commitParts (): ReturnType<RedisOutbox['commitParts']> {
    return { ...super.commitParts(), markDue: async () => { throw new Error('CLUSTERDOWN The cluster is down') } }
  }

  override async recover (): Promise<void> {
    this.recovered++
  }
}

class FailingOverBackend extends RedisStorageBackend {
  protected override createOutbox (): RedisOutbox {
    return new UnmarkedOutbox(this.client, this.keyPrefix)
  }
}

async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const stalled = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`stalled: ${what}`)) }, ms) })
  try {
    return await Promise.race([promise, stalled])
  } finally {
    clearTimeout(timer)
  }
}

t.test('a commit whose due mark was lost is delivered by the instance that committed it, with no recovery scan', async (t) => {
  const backend = new FailingOverBackend(client, { keyPrefix: `failover:${randomUUID()}:` })
  const paywire = new PaywireBuilder()
    .setStorageBackend(backend)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .setEventDelivery({ retryBaseMs: 1 })
    .getPaywire()
  t.teardown(() => paywire.close())
  const heard = deferred<PaymentEvent>()
  paywire.on('payment.captured', (event) => { heard.resolve(event) })
  paywire.events.start()
  const payment = Object.assign(paywire.getStorage(Payment).create(), { gatewayName: 'cash', number: 'FAILOVER-1', totalAmount: 500, currencyCode: 'EUR' })
  await paywire.getStorage(Payment).update(payment)
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  t.same(await backend.outbox.due(Date.now(), 100), [], 'the due index never heard of it')
  t.match(await within(heard.promise, 10_000, 'the committing instance delivers its own event'), { payment: { id: payment.id } })
  t.equal((backend.outbox as UnmarkedOutbox).recovered, 1, 'only the scan at start ran: it found nothing then')
})

t.test('an unmarked event another instance committed is found by the scan every recoverIntervalMs', async (t) => {
  const prefix = `failover:${randomUUID()}:`
  const committer = new UnmarkedOutbox(client, prefix)
  const scanned = { count: 0, first: deferred() }
  const outbox = new (class extends RedisOutbox {
    override async recover (): Promise<void> {
      await super.recover()
      if (++scanned.count === 1) scanned.first.resolve()
    }
  })(client, prefix)
  const events = new PaywireEvents(quiet, { outbox, recoverIntervalMs: 50 })
  t.teardown(() => events.close())
  const heard = deferred()
  events.onAny(() => { heard.resolve() })
  events.start()
  // Committed after the scan at start, so only a later scan can find it.
  await scanned.first.promise
  await committer.append([outboxRecord({ id: randomUUID(), type: 'payment.captured' }, `P-${randomUUID()}`)])
  t.same(await outbox.due(Date.now(), 100), [], 'unmarked')
  await within(heard.promise, 10_000, 'found by a recovery scan')
  t.ok(scanned.count >= 2, 'by a scan after the first')
})

t.test('the {outbox} slot\'s master killed (SIGKILL, no replica to take over): the committing instance still delivers its payment\'s event', async (t) => {
  const own = await ownCluster(t)
  // The surviving masters keep serving their slots, as a cluster mid-failover does for every slot but the failed one's.
  for (const node of own.nodes) await own.client.nodes('master').find((master) => master.options.port === node.port)?.config('SET', 'cluster-require-full-coverage', 'no')
  const killed = new Cluster(own.nodes, { redisOptions: { protocol: 2, commandTimeout: 500 }, enableAutoPipelining: true })
  t.teardown(() => { killed.disconnect() })
  const backend = new RedisStorageBackend(killed, { keyPrefix: `killed:${randomUUID()}:` })
  const slotOf = async (key: string) => Number(await own.client.cluster('KEYSLOT', key))
  const ranges = await own.client.cluster('SLOTS')
  const portOf = (slot: number) => ranges.find(([from, to]) => from <= slot && slot <= to)?.[2]?.[1]
  const outboxPort = portOf(await slotOf(backend.outbox.dueKey))
  const paywire = new PaywireBuilder()
    .addGlobalService(Logger, quiet)
    .setStorageBackend(backend)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  t.teardown(() => paywire.close())
  const heard = deferred<PaymentEvent>()
  paywire.on('payment.captured', (event) => { heard.resolve(event) })
  paywire.events.start()
  let payment: Payment
  do {
    payment = Object.assign(paywire.getStorage(Payment).create(), { id: randomUUID(), gatewayName: 'cash', number: 'KILLED-1', totalAmount: 500, currencyCode: 'EUR' })
  } while (portOf(await slotOf(`{${partitionOf('Payment', payment.id as string)}}`)) === outboxPort)
  await paywire.getStorage(Payment).update(payment)
  const victim = own.client.nodes('master').find((master) => master.options.port === outboxPort) as Redis
  const pid = Number(/process_id:(\d+)/.exec(await victim.info('server'))?.[1])
  process.kill(pid, 'SIGKILL')
  await paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  t.match(await within(heard.promise, 20_000, 'delivered with the due index\'s master dead'), { payment: { id: payment.id } })
})
