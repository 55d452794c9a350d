import t from 'tap'
import {
  AbstractStorage, Identity, MemoryStorage, Payment, PayoutModel, Token, defaultCodec, matchesCriteria, valueAt,
  type Criteria, type FindByOptions, type StagedWrite, type StoredRecord
} from '../../../../../plugins/core/engine/index.ts'

/** A storage over a Map that records every write and can be told to fail the next one. */
class RecordingStorage<T extends object> extends AbstractStorage<T> {
  readonly records = new Map<string, Record<string, unknown>>()
  readonly writes: Array<{ id: string, expectedVersion: number }> = []
  failNextWrite = false

  protected async doWrite (write: StagedWrite): Promise<void> {
    if (this.failNextWrite) {
      this.failNextWrite = false
      throw new Error('disk full')
    }
    this.writes.push({ id: write.id, expectedVersion: write.expectedVersion })
    if (write.record === null) this.records.delete(write.id)
    else this.records.set(write.id, structuredClone(write.record))
  }

  protected async doFind (id: string): Promise<StoredRecord | null> {
    const record = this.records.get(id)
    return record === undefined ? null : { record: structuredClone(record), version: 1 }
  }

  protected async doFindBy (criteria: Criteria, _options: FindByOptions): Promise<StoredRecord[]> {
    return [...this.records.values()].filter((record) => matchesCriteria(record, criteria)).map((record) => ({ record, version: 1 }))
  }
}

class Plain {
  id?: string
  name = ''
}

t.test('create() makes a model; support() accepts instances of the model class (and subclasses)', async (t) => {
  const storage = new RecordingStorage(Payment)
  t.ok(storage.create() instanceof Payment)
  t.equal(storage.modelName, 'Payment')
  t.ok(storage.support(new Payment()))
  t.ok(storage.support(new (class SpecialPayment extends Payment {})()))
  t.notOk(storage.support(new PayoutModel()))
  t.notOk(storage.support({ id: 'x' }))
  t.equal(new RecordingStorage(Payment, { modelName: 'Order' }).modelName, 'Order')
})

t.test('update() gives an id on the first save only and keeps it stable', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payment = storage.create()
  await storage.update(payment)
  const id = payment.id as string
  t.match(id, /^[0-9a-f-]{36}$/)
  payment.description = 'changed'
  await storage.update(payment)
  t.equal(payment.id, id)
  t.same(storage.writes, [{ id, expectedVersion: 0 }, { id, expectedVersion: 1 }], 'new, then against the version it wrote')
  t.equal(storage.records.size, 1)

  const other = storage.create()
  await storage.update(other)
  t.not(other.id, id)

  const preset = Object.assign(storage.create(), { id: 'chosen-id' })
  await storage.update(preset)
  t.equal(preset.id, 'chosen-id')
  t.same(storage.writes.at(-1), { id: 'chosen-id', expectedVersion: 0 }, 'a model with an id the storage never read is written as new')
  const empty = Object.assign(storage.create(), { id: '' })
  await storage.update(empty)
  t.not(empty.id, '')
})

t.test('the id property is configurable', async (t) => {
  const storage = new RecordingStorage(Payment, { idProperty: 'number' })
  const payment = storage.create()
  await storage.update(payment)
  t.match(payment.number, /^[0-9a-f-]{36}$/)
  t.equal(payment.id, undefined)
  t.same(storage.identify(payment), new Identity(payment.number, 'Payment'))
  t.equal((await storage.find(payment.number))?.number, payment.number)
})

t.test('createdAt is set once, updatedAt on every save; models without those fields get none', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payment = Object.assign(storage.create(), { createdAt: '2000-01-01T00:00:00.000Z', updatedAt: '2000-01-01T00:00:00.000Z' })
  await storage.update(payment)
  t.equal(payment.createdAt, '2000-01-01T00:00:00.000Z')
  t.not(payment.updatedAt, '2000-01-01T00:00:00.000Z')
  t.ok(Date.parse(payment.updatedAt as string) > Date.parse('2020-01-01'))

  const fresh = storage.create()
  await storage.update(fresh)
  t.type(fresh.createdAt, 'string')
  t.equal(fresh.createdAt, fresh.updatedAt)
  t.equal(storage.records.get(fresh.id as string)?.createdAt, fresh.createdAt, 'the stamps are stored too')

  const plain = new RecordingStorage(Plain)
  const model = plain.create()
  await plain.update(model)
  t.same(Object.keys(model).sort(), ['id', 'name'])
})

t.test('a failed first write leaves the model without an id or stamps', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payment = storage.create()
  storage.failNextWrite = true
  await t.rejects(storage.update(payment), { message: 'disk full' })
  t.equal(payment.id, undefined)
  t.equal(payment.createdAt, undefined)
  t.throws(() => storage.identify(payment), { code: 'PAYWIRE_ERR_MODEL_NOT_PERSISTED' })
  await storage.update(payment)
  t.same(storage.writes, [{ id: payment.id, expectedVersion: 0 }], 'the retry is still a first save')
})

t.test('update, delete and identify refuse models of another class with a coded error', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payout = new PayoutModel()
  payout.id = 'x'
  const message = 'Invalid model given: expected an instance of Payment but got Payout.'
  await t.rejects(storage.update(payout as never), { code: 'PAYWIRE_ERR_INVALID_MODEL', message })
  await t.rejects(storage.delete(payout as never), { code: 'PAYWIRE_ERR_INVALID_MODEL', message })
  t.throws(() => storage.identify(payout as never), { code: 'PAYWIRE_ERR_INVALID_MODEL', message })
  t.throws(() => storage.identify(null as never), { message: /but got null/ })
})

t.test('identify() needs a saved model and names the model in its error', async (t) => {
  const storage = new RecordingStorage(Payment, { modelName: 'Order' })
  const payment = storage.create()
  t.throws(() => storage.identify(payment), {
    code: 'PAYWIRE_ERR_MODEL_NOT_PERSISTED',
    message: /^The Order must be stored \(storage\.update\)/
  })
  await t.rejects(storage.delete(payment), { code: 'PAYWIRE_ERR_MODEL_NOT_PERSISTED' })
  await storage.update(payment)
  t.same(storage.identify(payment), new Identity(payment.id as string, 'Order'))
})

t.test('find() by id or by Identity; an Identity of another model name finds nothing', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'A-1' })
  await storage.update(payment)
  const id = payment.id as string
  t.equal((await storage.find(id))?.number, 'A-1')
  const found = await storage.find(new Identity(id, 'Payment'))
  t.ok(found instanceof Payment)
  t.equal(found?.number, 'A-1')
  t.equal(await storage.find(new Identity(id, 'Payout')), null)
  t.equal(await storage.find('missing'), null)

  await storage.delete(payment)
  t.equal(await storage.find(id), null)
})

t.test('findMany() returns models in the order asked, null where missing', async (t) => {
  const storage = new RecordingStorage(Payment)
  const a = Object.assign(storage.create(), { number: 'A' })
  const b = Object.assign(storage.create(), { number: 'B' })
  await storage.update(a)
  await storage.update(b)
  const found = await storage.findMany([b.id as string, 'missing', a.id as string])
  t.same(found.map((model) => model?.number ?? null), ['B', null, 'A'])
  t.ok(found[0] instanceof Payment)
  t.same(await storage.findMany([]), [])
})

t.test('findBy() turns records back into models', async (t) => {
  const storage = new RecordingStorage(Payment)
  await storage.update(Object.assign(storage.create(), { number: 'A', details: { status: 'captured' } }))
  await storage.update(Object.assign(storage.create(), { number: 'B', details: { status: 'pending' } }))
  const found = await storage.findBy({ 'details.status': 'captured' })
  t.equal(found.length, 1)
  t.ok(found[0] instanceof Payment)
  t.equal(found[0]?.number, 'A')
})

t.test('the default codec uses a static fromJSON when the class has one', async (t) => {
  const codec = defaultCodec(Token)
  const token = new Token()
  token.gatewayName = 'cash'
  const record = codec.toRecord(token)
  t.same(record, token.toJSON())
  const revived = codec.fromRecord(record)
  t.ok(revived instanceof Token)
  t.same(revived, token)

  const plain = defaultCodec(Plain)
  const model = Object.assign(new Plain(), { name: 'x' })
  t.same(plain.toRecord(model), { id: undefined, name: 'x' })
  t.ok(plain.fromRecord({ name: 'y' }) instanceof Plain)
})

t.test('a custom codec decides how models are stored', async (t) => {
  const storage = new MemoryStorage(Plain, {
    codec: {
      toRecord: (model) => ({ upper: model.name.toUpperCase() }),
      fromRecord: (record) => Object.assign(new Plain(), { name: String(record.upper).toLowerCase(), id: record.id as string })
    }
  })
  const model = Object.assign(storage.create(), { name: 'Mixed' })
  await storage.update(model)
  t.same(await storage.find(model.id as string), { id: model.id, name: 'mixed' })
})

t.test('valueAt and matchesCriteria read dotted paths', async (t) => {
  const record = { a: { b: { c: 1 } }, s: 'x', n: null }
  t.equal(valueAt(record, 'a.b.c'), 1)
  t.equal(valueAt(record, 's.length'), undefined, 'no walking into primitives')
  t.equal(valueAt(record, 'n.x'), undefined)
  t.equal(valueAt(record, 'missing.x'), undefined)
  t.ok(matchesCriteria(record, { 'a.b.c': 1, s: 'x' }))
  t.notOk(matchesCriteria(record, { 'a.b.c': 1, s: 'y' }))
  t.ok(matchesCriteria(record, {}))
})

t.test('assignId() gives an unsaved model its id without writing, keeps an existing one, and refuses other models', async (t) => {
  const storage = new RecordingStorage(Payment)
  const payment = storage.create()
  const identity = storage.assignId(payment)
  t.ok(identity instanceof Identity)
  t.equal(identity.modelName, 'Payment')
  t.match(payment.id, /^[0-9a-f-]{36}$/)
  t.equal(identity.id, payment.id)
  t.same(storage.writes, [], 'nothing written')
  t.equal(await storage.find(payment.id as string), null)
  t.same(storage.assignId(payment), identity, 'the id stays')
  await storage.update(payment)
  t.same(storage.writes.map((write) => write.id), [payment.id], 'the first save uses the assigned id')
  t.throws(() => storage.assignId(new Token() as unknown as Payment), { code: 'PAYWIRE_ERR_INVALID_MODEL' })
})

t.test('a staged record is the codec\'s fields then the new stamps, in that order; a custom codec\'s record is left as it was', async (t) => {
  const payments = new RecordingStorage(Payment)
  const payment = Object.assign(payments.create(), { number: 'A-1' })
  const write = payments.stage(payment)
  t.same(Object.keys(write.record as object), [...Object.keys(payment), 'id', 'createdAt', 'updatedAt'].filter((key, at, keys) => keys.indexOf(key) === at))
  t.equal(write.json, JSON.stringify(write.record))
  t.equal((write.record as Record<string, unknown>).id, write.id)

  const tokens = new RecordingStorage(Token, { idProperty: 'hash' })
  const token = new Token()
  t.same(Object.keys(tokens.stage(token).record as object), Object.keys(token.toJSON()), 'a JSON codec\'s record: the stamp in its place')

  const shared = { upper: 'X' }
  const custom = new RecordingStorage(Plain, { codec: { toRecord: () => shared, fromRecord: () => new Plain() } })
  const staged = custom.stage(custom.create())
  t.same(shared, { upper: 'X' }, 'the codec\'s own object is not stamped')
  t.same(staged.record, { upper: 'X', id: staged.id })

  // A field named "__proto__" is a field of the record, as a spread makes it, not the record's prototype.
  const odd = new RecordingStorage(Plain, { idProperty: '__proto__' })
  const oddWrite = odd.stage(odd.create())
  t.ok(Object.hasOwn(oddWrite.record as object, '__proto__'))
  t.match(oddWrite.json, /"__proto__":"[0-9a-f-]{36}"/)
})
