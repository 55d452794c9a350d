import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { PaywireEvents, outboxRecord, type OutboxRecord } from '../../../plugins/core/engine/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { readEntry } from '../../../plugins/redis/outbox-entry.ts'
import { testRedis } from './fixtures.ts'

const quiet = { debug () {}, info () {}, warn () {}, error () {} }

function event (partition: string, status: string): OutboxRecord {
  const described = { id: randomUUID(), type: 'payment.captured', status, payment: { note: 'a "quoted" word\nand a line' } }
  return outboxRecord(described, partition)
}

/** An entry as the versions before stored it: the event's JSON escaped into one JSON object. */
function oldEntry (record: OutboxRecord, dueAt: number, retried?: { attempts: number, lastError: string }): string {
  return JSON.stringify({ id: record.id, type: record.type, json: record.json, attempts: retried?.attempts ?? 0, dueAt, ...(retried === undefined ? {} : { lastError: retried.lastError }) })
}

async function setUp (t: Test, name: string) {
  const { client, prefix } = await testRedis(t, name)
  const { outbox } = new RedisStorageBackend(client, { keyPrefix: prefix })
  /** Stores entries as they are, as an upgrade finds them, and marks the partition due. */
  const store = async (partition: string, ...entries: string[]) => {
    await client.rpush(outbox.listKey(partition), ...entries)
    await client.zadd(outbox.dueKey, 'NX', Date.now(), partition)
  }
  return { client, outbox, store }
}

t.test('an event is encoded once: its entry is a header line, then the event\'s JSON as staged, not escaped', async (t) => {
  const { client, outbox } = await setUp(t, 'entry-form')
  const record = event('form', 'captured')
  await outbox.append([record])
  const [stored] = await client.lrange(outbox.listKey('form'), 0, -1)
  const [header, ...rest] = (stored as string).split('\n')
  t.match(JSON.parse(header as string), { id: record.id, type: 'payment.captured', attempts: 0, dueAt: Number })
  t.equal(rest.join('\n'), record.json, 'the event as the commit staged it')
  t.same(readEntry(stored as string, 'form'), { ...JSON.parse(header as string), partition: 'form', json: record.json })
})

t.test('entries an upgrade finds in the form before are delivered once each, in order, beside new ones', async (t) => {
  const { client, outbox, store } = await setUp(t, 'entry-upgrade')
  const old = [event('up-1', 'authorized'), event('up-1', 'captured')]
  await store('up-1', ...old.map((record) => oldEntry(record, Date.now())))
  // A partition whose old entries are followed by one the new version committed.
  const mixed = [event('up-2', 'authorized'), event('up-2', 'captured')]
  await store('up-2', oldEntry(mixed[0] as OutboxRecord, Date.now()))
  await outbox.append([mixed[1] as OutboxRecord])
  const events = new PaywireEvents(quiet, { outbox })
  t.teardown(() => events.close())
  const heard: unknown[] = []
  events.onAny((delivered) => { heard.push(delivered) })
  await events.drain()
  const parsed = [...old, ...mixed].map((record) => JSON.parse(record.json) as unknown)
  t.same(heard.filter((one) => (parsed.slice(0, 2) as Array<{ id: string }>).some(({ id }) => id === (one as { id: string }).id)), parsed.slice(0, 2), 'the old ones, in order')
  t.same(heard.filter((one) => (parsed.slice(2) as Array<{ id: string }>).some(({ id }) => id === (one as { id: string }).id)), parsed.slice(2), 'old then new, in order')
  t.equal(heard.length, 4, 'each once')
  t.equal(await client.exists(outbox.listKey('up-1'), outbox.listKey('up-2')), 0, 'the lists are gone')
  t.same(await outbox.due(Date.now() + 60_000, 10), [])
})

t.test('an old entry that fails is kept in the new form, then dies readable (batches)', async (t) => {
  const { client, outbox, store } = await setUp(t, 'entry-retry')
  const [first, second] = [event('re', 'authorized'), event('re', 'captured')] as [OutboxRecord, OutboxRecord]
  await store('re', oldEntry(first, Date.now()), oldEntry(second, Date.now(), { attempts: 2, lastError: 'before' }))
  let batch = await outbox.leaseBatch('re', 10_000, 10)
  t.same(batch?.entries.map(({ id, json, attempts }) => ({ id, json, attempts })), [{ id: first.id, json: first.json, attempts: 0 }, { id: second.id, json: second.json, attempts: 2 }])
  t.equal(batch?.entries[1]?.lastError, 'before')
  const dueAt = Date.now() + 60_000
  t.ok(await outbox.settleBatch(batch!.lease, [{ entry: batch!.entries[0]!, settlement: { outcome: 'retry', dueAt, error: 'no "luck"' } }]))
  const [retried] = await client.lrange(outbox.listKey('re'), 0, 0)
  t.equal(retried, `${JSON.stringify({ id: first.id, type: first.type, attempts: 1, dueAt, lastError: 'no "luck"' })}\n${first.json}`, 'rewritten in the new form')
  t.same(await outbox.due(dueAt, 10), ['re'], 'due when the retry is')
  batch = await outbox.leaseBatch('re', 10_000, 10)
  t.ok(await outbox.settleBatch(batch!.lease, [
    { entry: batch!.entries[0]!, settlement: { outcome: 'dead', error: 'again' } },
    { entry: batch!.entries[1]!, settlement: { outcome: 'delivered' } }
  ]))
  t.match(await outbox.dead(), [{ id: first.id, type: first.type, json: first.json, attempts: 2, lastError: 'again', partition: 're' }])
  t.equal(await client.exists(outbox.listKey('re')), 0)
})

t.test('old entries, one event at a time: the head read, a retry rewritten, the next old head\'s due time read by the settle', async (t) => {
  const { client, outbox, store } = await setUp(t, 'entry-single')
  const [first, second] = [event('one', 'authorized'), event('one', 'captured')] as [OutboxRecord, OutboxRecord]
  const later = Date.now() + 120_000
  await store('one', oldEntry(first, Date.now()), oldEntry(second, later))
  const lease = await outbox.lease('one', 10_000)
  const head = await outbox.head(lease!)
  t.match(head, { id: first.id, type: first.type, json: first.json, attempts: 0, partition: 'one' })
  const dueAt = Date.now() + 60_000
  t.ok(await outbox.settle(lease!, head!, { outcome: 'retry', dueAt, error: 'once' }))
  t.match(await outbox.head(lease!), { id: first.id, json: first.json, attempts: 1, dueAt, lastError: 'once' })
  t.notOk(await outbox.settle(lease!, { ...head!, id: 'another' }, { outcome: 'delivered' }), 'not the head: nothing changes')
  t.ok(await outbox.settle(lease!, head!, { outcome: 'delivered' }))
  t.equal(Number(await client.zscore(outbox.dueKey, 'one')), later, 'due when the old next head is')
  t.match(await outbox.head(lease!), { id: second.id, json: second.json, dueAt: later })
})
