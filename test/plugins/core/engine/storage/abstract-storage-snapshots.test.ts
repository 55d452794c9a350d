/*
 * What a storage remembers of each model it read or wrote, without encoding it more than once:
 * whether saving it would change anything (isUnchanged) and the record it was read as
 * (StagedWrite.previous), on a backend that gives its JSON (memory, Redis) and on one that
 * gives only the parsed record (PostgreSQL).
 */
import t from 'tap'
import {
  AbstractStorage, MemoryStorage, Payment, Token, matchesCriteria,
  type Criteria, type FindByOptions, type StagedWrite, type StoredRecord
} from '../../../../../plugins/core/engine/index.ts'

/** Keeps records as parsed objects and answers them without their JSON, like PostgreSQL. */
class RecordOnlyStorage<T extends object> extends AbstractStorage<T> {
  readonly records = new Map<string, { record: Record<string, unknown>, version: number }>()

  protected async doWrite (write: StagedWrite): Promise<void> {
    const version = this.records.get(write.id)?.version ?? 0
    if (write.expectedVersion !== version) throw this.conflict(write.id)
    this.records.set(write.id, { record: JSON.parse(write.json as string), version: version + 1 })
  }

  protected async doFind (id: string): Promise<StoredRecord | null> {
    const stored = this.records.get(id)
    return stored === undefined ? null : { record: structuredClone(stored.record), version: stored.version }
  }

  protected async doFindBy (criteria: Criteria, _options: FindByOptions): Promise<StoredRecord[]> {
    return [...this.records.values()].filter(({ record }) => matchesCriteria(record, criteria)).map((stored) => structuredClone(stored))
  }
}

const storages = [
  ['memory', () => new MemoryStorage(Payment)],
  ['a backend without the JSON', () => new RecordOnlyStorage(Payment)]
] as const

for (const [name, make] of storages) {
  t.test(`${name}: a payment as just written or read is unchanged, down to its details, until something in it changes`, async (t) => {
    const storage = make()
    const payment = Object.assign(storage.create(), { number: 'A-1', details: { status: 'pending', at: new Date(0), provider: { ids: ['a'], fee: 0.5 } } })
    t.notOk(storage.isUnchanged(payment), 'never stored')
    await storage.update(payment)
    t.ok(storage.isUnchanged(payment), 'as written (a date in the details encodes as it was stored)')
    const read = await storage.find(payment.id as string) as Payment
    t.ok(storage.isUnchanged(read), 'as read')
    ;(read.details.provider as { ids: string[] }).ids.push('b')
    t.notOk(storage.isUnchanged(read), 'a change deep in the details')
    payment.description = 'changed'
    t.notOk(storage.isUnchanged(payment), 'a changed field')
  })

  t.test(`${name}: previous is the record as read, whatever the model became since`, async (t) => {
    const storage = make()
    const payment = Object.assign(storage.create(), { number: 'A-2', details: { status: 'pending' } })
    await storage.update(payment)
    const stored = JSON.parse(storage.stage(payment).json as string)
    const read = await storage.find(payment.id as string) as Payment
    read.details.status = 'captured'
    read.number = 'A-3'
    const write = storage.stage(read)
    t.same(write.record?.details, { status: 'captured' })
    const previous = { ...stored, updatedAt: payment.updatedAt }
    t.strictSame(write.previous, previous)
    t.equal(storage.stage(storage.create()).previous, null, 'never stored: none')
  })
}

t.test('a backend without the JSON: previous holds exactly the stored fields, also when the model class has more', async (t) => {
  const storage = new RecordOnlyStorage(Payment)
  // Written before Payment had clientId and description: the model fills them in, the record has none.
  storage.records.set('old', { record: { id: 'old', number: 'OLD-1', totalAmount: 5, details: { status: 'captured' } }, version: 1 })
  const old = await storage.find('old') as Payment
  t.equal(old.description, '')
  t.strictSame(storage.stage(old).previous, { id: 'old', number: 'OLD-1', totalAmount: 5, details: { status: 'captured' } })
  t.ok(storage.isUnchanged(old), 'filled-in defaults are not a change')
})

t.test('a model changed while its write was in flight is not taken for stored', async (t) => {
  const storage = new MemoryStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'A-4' })
  await storage.updateThrough(payment, async (write) => {
    payment.description = 'changed meanwhile'
    await storage.write(write)
  })
  t.notOk(storage.isUnchanged(payment))
  await storage.update(payment)
  t.equal((await storage.find(payment.id as string))?.description, 'changed meanwhile', 'saved by the next save')
})

t.test('a model whose class has fromJSON is told unchanged or changed from its JSON', async (t) => {
  const storage = new RecordOnlyStorage(Token, { idProperty: 'hash' })
  const token = new Token()
  token.afterUrl = 'https://shop.example/after'
  await storage.update(token)
  t.ok(storage.isUnchanged(token))
  const read = await storage.find(token.hash) as Token
  t.ok(storage.isUnchanged(read))
  t.strictSame(storage.stage(read).previous, token.toJSON())
  read.afterUrl = null
  t.notOk(storage.isUnchanged(read))
})
