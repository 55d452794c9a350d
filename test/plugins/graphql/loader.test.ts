import t from 'tap'
import { MemoryStorage, Payment } from '../../../plugins/core/index.ts'
import { MAX_BATCH, PaymentLoader } from '../../../plugins/graphql/loader.ts'

class RecordingStorage extends MemoryStorage<Payment> {
  batches: string[][] = []
  failNext = false

  constructor () {
    super(Payment)
  }

  override async findMany (ids: readonly string[]): Promise<Array<Payment | null>> {
    this.batches.push([...ids])
    if (this.failNext) {
      this.failNext = false
      throw new Error('storage down')
    }
    return await super.findMany(ids)
  }
}

async function stored (storage: RecordingStorage, count: number): Promise<Payment[]> {
  const payments: Payment[] = []
  for (let index = 0; index < count; index++) {
    const payment = Object.assign(storage.create(), { number: `N-${index}` })
    await storage.update(payment)
    payments.push(payment)
  }
  return payments
}

t.test('loads asked for together go to findMany together, each id once', async (t) => {
  const storage = new RecordingStorage()
  const [a, b] = await stored(storage, 2) as [Payment, Payment]
  const loader = new PaymentLoader(storage)
  const answers = await Promise.all([loader.load(a.id as string), loader.load('missing'), loader.load(b.id as string), loader.load(a.id as string)])
  t.same(answers.map((payment) => payment?.number ?? null), ['N-0', null, 'N-1', 'N-0'])
  t.same(storage.batches, [[a.id, 'missing', b.id]])
  t.equal(await loader.load(a.id as string), answers[0], 'cached for the request')
  t.equal(storage.batches.length, 1)
})

t.test('primed payments are not fetched; cleared ones are fetched again', async (t) => {
  const storage = new RecordingStorage()
  const [a] = await stored(storage, 1) as [Payment]
  const loader = new PaymentLoader(storage)
  t.equal(loader.prime(a), a)
  t.equal(await loader.load(a.id as string), a)
  t.same(storage.batches, [])
  loader.prime(storage.create())
  t.not(await loader.clear(a.id as string).load(a.id as string), a)
  t.same(storage.batches, [[a.id]])
})

t.test('batches are at most MAX_BATCH ids', async (t) => {
  const storage = new RecordingStorage()
  const payments = await stored(storage, MAX_BATCH + 5)
  const loaded = await new PaymentLoader(storage).loadMany(payments.map((payment) => payment.id as string))
  t.equal(loaded.length, MAX_BATCH + 5)
  t.same(storage.batches.map((batch) => batch.length), [MAX_BATCH, 5])
})

t.test('a failed batch fails its loads and is not cached', async (t) => {
  const storage = new RecordingStorage()
  const [a] = await stored(storage, 1) as [Payment]
  const loader = new PaymentLoader(storage)
  storage.failNext = true
  await t.rejects(loader.load(a.id as string), { message: 'storage down' })
  t.equal((await loader.load(a.id as string))?.number, 'N-0', 'the next load tries again')
})
