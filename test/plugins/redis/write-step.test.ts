/*
 * A write's second step on a single Redis (step-script.ts, commit-with-steps.ts, redis-commit.ts):
 * the list, the indexes and the facets, run in the commit's own script once its checks passed,
 * writing only what changed. On a Redis of the test's own, so MONITOR
 * sees every command the scripts run (and SCRIPT FLUSH touches no other test).
 */
import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { Capture, Payment, type PaymentFacets } from '../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { decodeRecord, encodeRecord, recordKey, tokenKey } from '../../../plugins/redis/keys.ts'
import { searchShop } from '../../helpers/payment-search-contract.ts'
import { ownRedis, type OwnRedis } from '../../helpers/redis-server.ts'
import { buildTestApp, pathOf } from '../core/fixtures.ts'
import { deferred, socketWrites } from './fixtures.ts'

const redis = await ownRedis(t)

interface Setup { client: Redis, prefix: string, backend: RedisStorageBackend }

/** The plugin's own client settings: commands issued together leave in one write. */
function setup (): Setup {
  const client = new Redis(redis.url, { protocol: 2, enableAutoPipelining: true })
  t.teardown(() => client.disconnect())
  const prefix = `step:${randomUUID()}:`
  return { client, prefix, backend: new RedisStorageBackend(client, { keyPrefix: prefix }) }
}

/** A command the client sent, with the commands Redis ran inside it when it is a script. */
interface Call { name: string, args: string[], inner: string[][] }

/** What the client sent during the work, as MONITOR reports it (only this test's connections use this Redis). */
async function calls (own: OwnRedis, client: Redis, work: () => Promise<void>): Promise<Call[]> {
  const source = /\baddr=(\S+)/.exec(String(await client.client('INFO')))?.[1]
  const monitor = new Redis(own.url, { protocol: 2, monitor: true })
  await new Promise((resolve) => monitor.once('monitoring', resolve))
  const [start, end] = [randomUUID(), randomUUID()]
  const seen: Call[] = []
  const ended = deferred()
  let recording = false
  monitor.on('monitor', (_time: string, [name = '', ...args]: string[], from: string) => {
    const command = name.toLowerCase()
    if (from === 'lua') {
      if (recording) seen.at(-1)?.inner.push([command, ...args])
    } else if (from === source) {
      if (command === 'echo' && args[0] === start) recording = true
      else if (command === 'echo' && args[0] === end) ended.resolve()
      else if (recording) seen.push({ name: command, args, inner: [] })
    }
  })
  try {
    await client.echo(start)
    await work()
    await client.echo(end)
    await ended.promise
  } finally {
    monitor.disconnect()
  }
  return seen
}

/** The calls whose keys include `key`, each as the commands it ran: "name key". */
function scriptsOn (seen: Call[], key: string): string[][] {
  return seen.filter((call) => call.name === 'evalsha' && call.args.includes(key)).map((call) => call.inner.map(([name, key]) => `${name} ${key}`))
}

/** The commands of a script that are its steps' (on the model's list, indexes and search keys), apart from the commit's. */
function stepPart (commands: string[] | undefined, prefix: string): string[] {
  return (commands ?? []).filter((command) => ['ids:', 'counter:', 'index:', 'search:'].some((start) => command.split(' ')[1]?.startsWith(`${prefix}${start}`)))
}

const facetsKey = (prefix: string) => `${prefix}search:{Payment}:facets`
const setKey = (prefix: string, set: string) => `${prefix}search:{Payment}:${set}`
const indexKey = (prefix: string, value: string) => `${prefix}index:{Payment}:number:${value}`

async function storedFacets (client: Redis, prefix: string, id: string): Promise<PaymentFacets & { v: number, w?: number }> {
  return JSON.parse(await client.hget(facetsKey(prefix), id) as string)
}

t.test('a capture: the facets move between the two status sets only, no index entry is written again, the token is read once', async (t) => {
  const { client, prefix, backend } = setup()
  const { app } = await buildTestApp({ backend })
  t.teardown(() => app.close())
  const payments = app.paywire.getStorage(Payment)
  const flow = async (number: string) => {
    const payment = Object.assign(payments.create(), { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
    const token = await app.paywire.prepareCapture('cash', payment, 'done')
    return { payment, token }
  }
  await flow('STEP-0')
  const { payment, token } = await flow('STEP-1')
  const id = payment.id as string
  const member = `${(await storedFacets(client, prefix, id)).createdAt}|${id}`
  t.equal(await client.zscore(setKey(prefix, 'status:new'), member), '0', 'prepared: listed as new')

  const seen = await calls(redis, client, async () => {
    t.equal((await app.inject({ url: pathOf(token.targetUrl) })).statusCode, 302)
  })
  const record = recordKey(prefix, 'Payment', id)
  const scripts = scriptsOn(seen, facetsKey(prefix))
  t.equal(scripts.length, 1, 'the step runs in the commit\'s script: no script of its own')
  t.same(stepPart(scripts[0], prefix), [
    `hget ${facetsKey(prefix)}`, `zrem ${setKey(prefix, 'status:new')}`, `zadd ${setKey(prefix, 'status:captured')}`, `hset ${facetsKey(prefix)}`
  ], 'the step reads the facets, moves the status; its number, gateway, currency and creation entries stay; it was never in the attention set')
  t.same(scripts[0]?.filter((command) => command === `get ${record}`), [`get ${record}`], 'the record is read once, by the commit\'s version check: the step checks nothing again')
  const commit = seen.filter((call) => call.inner.some(([name, key]) => name === 'del' && key?.endsWith(':claim')) && call.inner.some(([name]) => name === 'rpush'))
  t.equal(commit.length, 1, 'one commit script')
  t.same(commit[0]?.inner.filter(([name, key]) => name === 'get' && key === tokenKey(prefix, token.hash)), [['get', tokenKey(prefix, token.hash)]], 'the commit reads the token once')
  t.match(await client.get(tokenKey(prefix, token.hash)), /^used:/, 'and uses it up')
  t.equal(await client.zscore(setKey(prefix, 'status:captured'), member), '0')
  t.equal(await client.zscore(setKey(prefix, 'status:new'), member), null)
  t.same((await payments.findBy({ number: 'STEP-1' })).map((found) => found.id), [id], 'its index entry stayed')
})

t.test('the attention set is written only when attentionAt changes, and left only by a payment that was in it', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const payment = await shop.make(1, { steps: ['capture'], paid: false })
  const id = payment.id as string
  const attention = setKey(prefix, 'attention')
  const before = await storedFacets(client, prefix, id)
  t.equal(before.status, 'pending')
  t.equal(await client.zscore(attention, id), String(Date.parse(before.attentionAt as string)), 'pending: in the attention set')

  payment.details.paid = true
  const direct = await calls(redis, client, async () => { await shop.payments.update(payment) })
  const moved = await storedFacets(client, prefix, id)
  t.not(moved.attentionAt, before.attentionAt, 'the write moved its attentionAt (pending since its updatedAt)')
  t.same(scriptsOn(direct, facetsKey(prefix)).map((commands) => stepPart(commands, prefix)), [[`hget ${facetsKey(prefix)}`, `hset ${facetsKey(prefix)}`, `zadd ${attention}`]],
    'still pending: no set moves, the attention entry gets its new time')
  t.equal(await client.zscore(attention, id), String(Date.parse(moved.attentionAt as string)))

  const capture = await calls(redis, client, async () => { await shop.paywire.executeExclusive('cash', payment, (model) => new Capture(model)) })
  t.same(scriptsOn(capture, facetsKey(prefix))[0]?.slice(-2), [`hset ${facetsKey(prefix)}`, `zrem ${attention}`], 'captured: out of the attention set')
  t.equal(await client.zscore(attention, id), null)
  t.same(await shop.ids({ status: ['captured'] }), [id])
})

t.test('one round trip per write, an indexed value changed included; a refused write changes no entry and no facets', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const { id } = await shop.make(1) as { id: string }
  const [first, second] = [await shop.payments.find(id), await shop.payments.find(id)] as [Payment, Payment]
  first.number = 'RENUMBERED'
  t.equal(await socketWrites(client, async () => { await shop.payments.update(first) }), 1, 'the commit and its step in one write')
  t.same((await shop.payments.findBy({ number: 'RENUMBERED' })).map((found) => found.id), [id])
  t.equal(await client.zscore(indexKey(prefix, 'ORDER-1'), id), null, 'the dropped value\'s entry is gone: known from the record the write replaced')
  const facets = await client.hget(facetsKey(prefix), id)
  t.match(JSON.parse(facets as string), { v: 2, w: 2, updatedAt: first.updatedAt })

  // Read at version 1 too: its write would store version 2, which is the version stored now.
  second.number = 'REFUSED'
  second.totalAmount = 5
  await t.rejects(shop.payments.update(second), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  t.equal(await client.zscore(indexKey(prefix, 'REFUSED'), id), null, 'the refused write\'s step did nothing: no entry for its value')
  t.equal(await client.hget(facetsKey(prefix), id), facets, 'nor its facets')
  t.same(await shop.ids({ amountMax: 5 }), [])
})

t.test('a step that did not run is healed by the next write, the values it keeps included', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const { id } = await shop.make(1) as { id: string }
  // Version 2 committed, its step lost (a Redis that died between the two scripts): the record alone.
  const key = recordKey(prefix, 'Payment', id)
  const stored = JSON.parse(decodeRecord(await client.get(key) as string).json)
  await client.set(key, encodeRecord(2, JSON.stringify({ ...stored, number: 'LOST' })))
  t.same(await shop.payments.findBy({ number: 'LOST' }), [], 'hidden from its index')
  t.match(await storedFacets(client, prefix, id), { v: 1, w: 1 })

  const payment = await shop.payments.find(id) as Payment
  payment.totalAmount = 1234
  await shop.payments.update(payment)
  t.same((await shop.payments.findBy({ number: 'LOST' })).map((found) => found.id), [id], 'a value the write kept, indexed again')
  t.match(await storedFacets(client, prefix, id), { v: 3, w: 3, totalAmount: 1234 })

  // reindexPayments() stores facets without the mark: the next write puts every entry again.
  await client.zrem(indexKey(prefix, 'LOST'), id)
  t.same(await shop.paywire.reindexPayments(), { payments: 1, indexed: 1 })
  t.equal((await storedFacets(client, prefix, id)).w, undefined)
  payment.totalAmount = 4321
  await shop.payments.update(payment)
  t.same((await shop.payments.findBy({ number: 'LOST' })).map((found) => found.id), [id])
})

t.test('a step that raised an error in the commit\'s script leaves the commit landed, and is sent again on its own', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const { id } = await shop.make(1) as { id: string }
  const payment = await shop.payments.find(id) as Payment
  payment.number = 'AGAIN'
  // The index key the step adds the id to holds a string: its ZADD fails (WRONGTYPE), after the commit's writes.
  await client.set(indexKey(prefix, 'AGAIN'), 'not a sorted set')
  const evalsha = client.evalsha
  let failed = 0
  client.evalsha = async function restoring (this: Redis, ...args: Parameters<typeof evalsha>) {
    const answer = await evalsha.apply(this, args)
    if (failed === 0 && (args as unknown[]).includes(facetsKey(prefix))) {
      failed++
      t.match(answer, ['ok'], 'the commit landed')
      t.equal((answer as unknown[]).at(-1), -1, 'its step answered an error')
      await client.del(indexKey(prefix, 'AGAIN'))
    }
    return answer
  } as typeof evalsha
  t.teardown(() => { client.evalsha = evalsha })
  await shop.payments.update(payment)
  t.equal(failed, 1)
  t.equal(decodeRecord(await client.get(recordKey(prefix, 'Payment', id)) as string).version, 2)
  t.same((await shop.payments.findBy({ number: 'AGAIN' })).map((found) => found.id), [id])
  t.equal(await client.zscore(indexKey(prefix, 'ORDER-1'), id), null)
  t.match(await storedFacets(client, prefix, id), { v: 2, w: 2, updatedAt: payment.updatedAt })
})

t.test('a record replaced under the version it was read with: the entries of the values it really had go too', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const { id } = await shop.make(1) as { id: string }
  const stale = await shop.payments.find(id) as Payment
  await shop.payments.delete(await shop.payments.find(id) as Payment)
  // The same id stored again, as version 1 again, with another number.
  await shop.payments.update(Object.assign(shop.payments.create(), { ...stale, number: 'REPLACED' }))
  stale.number = 'LATEST'
  await shop.payments.update(stale)
  t.same((await shop.payments.findBy({ number: 'LATEST' })).map((found) => found.id), [id])
  t.equal(await client.zscore(indexKey(prefix, 'REPLACED'), id), null, 'the answer of the commit told the value it replaced')
  t.equal(await client.zscore(indexKey(prefix, 'ORDER-1'), id), null)
})

t.test('after SCRIPT FLUSH, the script is sent again whole, the step still in it', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const payment = await shop.make(1, { steps: ['capture'], paid: false }) as Payment
  await redis.admin.script('FLUSH')
  payment.number = 'FLUSHED'
  payment.details.paid = true
  const seen = await calls(redis, client, async () => { await shop.payments.update(payment) })
  t.same(seen.map((call) => call.name), ['evalsha', 'eval'], 'the commit with its step, refused, then sent whole')
  t.match(await storedFacets(client, prefix, payment.id as string), { v: 3, w: 3, updatedAt: payment.updatedAt })
  t.same((await shop.payments.findBy({ number: 'FLUSHED' })).map((found) => found.id), [payment.id])
  await shop.paywire.executeExclusive('cash', payment, (model) => new Capture(model))
  t.same(await shop.ids({ status: ['captured'] }), [payment.id])
  t.same(await shop.ids({ status: ['pending'] }), [])
})

t.test('facets of a newer record version than a step\'s are kept, and that step changes nothing', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const payment = await shop.make(1) as Payment
  const id = payment.id as string
  const newer = JSON.stringify({ ...await storedFacets(client, prefix, id), v: 9, w: 9 })
  await client.hset(facetsKey(prefix), id, newer)
  payment.number = 'OLDER'
  await shop.payments.update(payment)
  t.equal(await client.hget(facetsKey(prefix), id), newer)
  t.equal(await client.zscore(indexKey(prefix, 'OLDER'), id), null, 'the newer step healed the entries')
})

t.test('a delete removes the payment from the list, its index entries and every set', async (t) => {
  const { client, prefix, backend } = setup()
  const shop = await searchShop(t, backend)
  const payment = await shop.make(1, { steps: ['capture'], paid: false }) as Payment
  await shop.payments.delete(payment)
  const left = (await client.keys(`${prefix}*`)).filter((key) => !key.includes('outbox')).sort()
  t.same(left, [`${prefix}counter:{Payment}`], 'nothing but the creation counter is left (and the outbox\'s events)')
})
