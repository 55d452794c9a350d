/*
 * Paywire on a Redis Cluster of the test's own (3 masters): the storage contract, records
 * spread over every master, indexes and lists under each model's tag, commits across
 * slots, tokens and claims, and the plugin opening a Cluster client from its nodes.
 */
import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import { Cluster } from 'ioredis'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import {
  Identity, Payment, PaywireEvents, Token, UnitOfWork, affinityTag, outboxRecord, partitionOf, paywire, type Storage
} from '../../../plugins/core/index.ts'
import { generateTokenHash } from '../../../plugins/core/engine/random.ts'
import { RedisStorageBackend, paywireRedis } from '../../../plugins/redis/index.ts'
import { recordKey } from '../../../plugins/redis/keys.ts'
import { backendContract } from '../../helpers/backend-contract.ts'
import { paymentSearchContract } from '../../helpers/payment-search-contract.ts'
import { ownCluster } from '../../helpers/redis-cluster.ts'

const cluster = await ownCluster(t)

/** A client for the code under test, as the plugin makes one: RESP2, auto-pipelining per node. */
function clusterClient (): Cluster {
  const client = new Cluster(cluster.nodes, { redisOptions: { protocol: 2 }, enableAutoPipelining: true })
  t.teardown(() => client.disconnect())
  return client
}

const client = clusterClient()

function backendFor (): { backend: RedisStorageBackend, payments: Storage<Payment>, prefix: string } {
  const prefix = `cluster:${randomUUID()}:`
  const backend = new RedisStorageBackend(client, { keyPrefix: prefix })
  return { backend, payments: backend.createStorage(Payment), prefix }
}

async function saved (payments: Storage<Payment>, fields: Partial<Payment> = {}): Promise<Payment> {
  const payment = Object.assign(payments.create(), { number: `N-${randomUUID()}`, totalAmount: 100, currencyCode: 'EUR' }, fields)
  await payments.update(payment)
  return payment
}

t.test('the storage contract', async (t) => {
  backendContract(t, async () => {
    const { backend, payments } = backendFor()
    return { backend, tokens: backend.createTokenStorage(), payments }
  })
})

t.test('the payment search contract: facets under the model\'s tag, records spread over the masters', async (t) => {
  paymentSearchContract(t, async () => backendFor().backend)
})

t.test('payments spread over every master, and are found by id, in bulk and by any criteria', async (t) => {
  const { payments } = backendFor()
  const all: Payment[] = []
  for (let i = 0; i < 24; i++) all.push(await saved(payments, { number: `SPREAD-${i}`, clientEmail: i % 2 === 0 ? 'even@example.com' : 'odd@example.com' }))
  const sizes = await Promise.all(cluster.client.nodes('master').map((node) => node.dbsize()))
  t.ok(sizes.every((size) => size > 0), `every master holds keys: ${sizes.join(', ')}`)
  const many = await payments.findMany(all.map((payment) => payment.id as string).reverse())
  t.same(many.map((payment) => payment?.number), all.map((payment) => payment.number).reverse(), 'findMany across slots, in the order asked')
  t.same((await payments.findBy({ number: 'SPREAD-7' })).map((payment) => payment.id), [all[7]?.id])
  const evens = await payments.findBy({ clientEmail: 'even@example.com' }, { offset: 2, limit: 3 })
  t.same(evens.map((payment) => payment.number), ['SPREAD-4', 'SPREAD-6', 'SPREAD-8'], 'an index, in creation order, paged')
  t.same((await payments.findBy({ totalAmount: 100 }, { offset: 20 })).map((payment) => payment.number), ['SPREAD-20', 'SPREAD-21', 'SPREAD-22', 'SPREAD-23'], 'a scan')
})

t.test('indexes follow changed values and deletes; a stale entry never answers a record that does not match', async (t) => {
  const { payments, prefix } = backendFor()
  const payment = await saved(payments, { number: 'OLD' })
  const other = await saved(payments, { number: 'OTHER' })
  payment.number = 'NEW'
  await payments.update(payment)
  t.same(await payments.findBy({ number: 'OLD' }), [])
  t.same((await payments.findBy({ number: 'NEW' })).map((found) => found.id), [payment.id])
  t.equal(await client.exists(`${prefix}index:{Payment}:number:OLD`), 0, 'the old entry was removed')
  // As a commit that failed after its index step was sent leaves it: an entry whose record says otherwise.
  await client.zadd(`${prefix}index:{Payment}:number:NEW`, 0, other.id as string)
  await client.zadd(`${prefix}index:{Payment}:number:NEW`, 0, 'no-such-record')
  t.same((await payments.findBy({ number: 'NEW' })).map((found) => found.id), [payment.id], 'only the matching record')
  t.same((await payments.findBy({ number: 'NEW' }, { limit: 1 })).map((found) => found.id), [payment.id], 'limits count matches, not entries')
  await payments.delete(payment)
  t.same(await payments.findBy({ number: 'NEW' }), [])
  t.same((await payments.findBy({})).map((found) => found.id), [other.id], 'the list lost it too')
})

t.test('a commit across two payments\' slots is checked whole before anything is written', async (t) => {
  const { backend, payments } = backendFor()
  const tokens = backend.createTokenStorage()
  // Two payments whose keys are on different slots (their tags differ).
  const first = await saved(payments, { description: 'before' })
  let second = await saved(payments, { description: 'before' })
  while (tagOf(payments, second) === tagOf(payments, first)) second = await saved(payments, { description: 'before' })
  const claim = await tokens.claimModel(new Identity(first.id as string, 'Payment'), 10_000)
  const staleSecond = await payments.find(second.id as string) as Payment
  second.description = 'written meanwhile'
  await payments.update(second)
  const copy = await payments.find(first.id as string) as Payment
  copy.description = 'after'
  staleSecond.description = 'stale'
  const unit = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
  unit.save(copy, payments)
  unit.save(staleSecond, payments)
  await t.rejects(unit.commit(), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  t.equal((await payments.find(first.id as string))?.description, 'before', 'the other slot was not written')

  const fresh = await payments.find(second.id as string) as Payment
  fresh.description = 'after'
  const retry = new UnitOfWork({ backend, tokenStorage: tokens, claim, claimTtlMs: 10_000 })
  retry.save(copy, payments)
  retry.save(fresh, payments)
  await retry.commit()
  t.same([(await payments.find(first.id as string))?.description, (await payments.find(second.id as string))?.description], ['after', 'after'])
  t.ok(await tokens.claimModel(new Identity(first.id as string, 'Payment'), 10_000), 'the claim was released last')
})

function tagOf (payments: Storage<Payment>, payment: Payment): string {
  return (payments as unknown as { recordKey: (id: string) => string }).recordKey(payment.id as string).split('}')[0] as string
}

t.test('tokens of several payments are saved in one call and each claims its own payment', async (t) => {
  const { backend, payments } = backendFor()
  const tokens = backend.createTokenStorage()
  const owners = [await saved(payments), await saved(payments), await saved(payments)]
  // Hashes made as the token factory makes them: starting with their payment's tag.
  const made = owners.map((payment) => Object.assign(new Token(generateTokenHash(affinityTag('Payment', payment.id as string))), {
    gatewayName: 'cash', targetUrl: 'https://shop.example/payment/capture/x', afterUrl: null, details: payments.identify(payment)
  }))
  await tokens.save(made)
  for (const token of made) {
    const claimed = await tokens.claim(token.hash, 10_000)
    t.equal(claimed?.token.details?.id, token.details?.id)
    // Read by the claim script from the token's slot, on the node that holds it: no second read.
    t.equal(claimed?.reads?.size, 1)
    t.equal((await payments.find(token.details!, { reads: claimed?.reads }))?.id, token.details?.id)
    t.equal(claimed?.reads?.size, 0, 'the payment came with its claim')
    const read = await tokens.findAndRead(token.hash)
    t.equal((await payments.find(token.details!, { reads: read.reads }))?.id, token.details?.id)
    t.equal(read.reads?.size, 0, 'and with the token alone')
    t.equal(await tokens.invalidate(token.hash), true)
    await tokens.releaseClaim(claimed!.claim)
  }
  t.same(await tokens.findUsed(made[0]?.hash as string), { afterUrl: null })
})

t.test('the plugin opens a Cluster client from its nodes; a capture flow works on it; durability is read from every master', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  const keyPrefix = `cluster:${randomUUID()}:`
  await app.register(paywireRedis, { cluster: [cluster.nodes[0] as { host: string, port: number }], keyPrefix })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()
  t.ok(app.paywireRedis.client.isCluster)
  const warning = lines.find((line) => line.code === 'PAYWIRE_WARN_REDIS_NOT_DURABLE')
  t.match(warning, { level: 40, redis: `redis-cluster://${cluster.nodes[0]?.host}:${cluster.nodes[0]?.port}` })
  for (const node of cluster.nodes) t.match(warning?.problem, `${node.host}:${node.port}: no persistence`, 'every master is named')

  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'CLUSTER-1', totalAmount: 1999, currencyCode: 'EUR' })
  const token = await app.paywire.prepareCapture('cash', payment, 'done')
  const capture = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(capture.statusCode, 302)
  const done = await app.inject({ url: new URL(capture.headers.location as string).pathname, headers: { accept: 'application/json' } })
  t.equal(done.json().status, 'captured')
  t.equal((await app.inject({ url: new URL(token.targetUrl).pathname })).statusCode, 303, 'the used link redirects to its result')
  t.same((await storage.findBy({ number: 'CLUSTER-1' })).map((found) => found.id), [payment.id])
})

t.test('a Cluster client of the application: named by its nodes; requireDurability checks every master', async (t) => {
  const own = clusterClient()
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywireRedis, { client: own, keyPrefix: `cluster:${randomUUID()}:`, requireDurability: true })
  app.register(async (scope) => {
    await scope.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywireRedis })
  })
  const error = await app.ready().then(() => undefined, (failure: Error) => failure) as Error & { code?: string }
  t.equal(error?.code, 'PAYWIRE_ERR_REDIS_NOT_DURABLE')
  for (const node of cluster.nodes) t.match(error?.message, `${node.host}:${node.port}`)
  t.match(error?.message, /^Redis at redis-cluster:\/\//)
  t.equal(own.status, 'ready', 'the application\'s client is left open')
})

t.test('events: a payment\'s outbox list is in its slot, written by its commit; a lost due mark is found by recover()', async (t) => {
  const { backend, payments } = backendFor()
  const tokens = backend.createTokenStorage()
  const payment = await saved(payments, { number: 'EVENTS-CLUSTER' })
  const identity = new Identity(payment.id as string, 'Payment')
  const claim = await tokens.claimModel(identity, 10_000)
  const partition = partitionOf('Payment', payment.id as string)
  const unit = new UnitOfWork({
    backend,
    tokenStorage: tokens,
    claim,
    claimTtlMs: 10_000,
    events: { describe: () => [outboxRecord({ id: randomUUID(), type: 'payment.captured' }, partition)], committed: () => {} }
  })
  payment.description = 'captured'
  unit.save(payment, payments)
  await unit.commit()
  const listKey = backend.outbox.listKey(partition)
  const slot = async (key: string) => await cluster.client.cluster('KEYSLOT', key)
  t.equal(await slot(listKey), await slot(recordKey(backend.keyPrefix, 'Payment', payment.id as string)),
    'the events sit in the payment\'s slot: one script stored both')
  t.equal(await cluster.client.llen(listKey), 1)
  // The due mark (another slot) lost, as when its node failed at that very moment.
  await cluster.client.zrem(backend.outbox.dueKey, partition)
  const events = new PaywireEvents({ debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }, { outbox: backend.outbox })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.onAny((event) => { heard.push(event.type) })
  t.same(await backend.outbox.due(Date.now(), 100), [], 'nothing looks due')
  await backend.outbox.recover()
  await events.drain()
  t.same(heard, ['payment.captured'], 'found by the SCAN of the masters, and delivered')
  t.equal(await cluster.client.exists(listKey), 0, 'delivered events are not kept')
})
