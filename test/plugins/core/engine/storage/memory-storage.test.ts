import t from 'tap'
import { MemoryStorage, Payment } from '../../../../../plugins/core/engine/index.ts'

async function storedPayments (numbers: string[]) {
  const storage = new MemoryStorage(Payment)
  for (const number of numbers) {
    await storage.update(Object.assign(storage.create(), { number, currencyCode: number < 'C' ? 'EUR' : 'USD', details: { ref: number } }))
  }
  return storage
}

t.test('find() returns a fresh copy each time: unsaved changes are not visible', async (t) => {
  const storage = new MemoryStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'A-1', details: { status: 'new' } })
  await storage.update(payment)
  const id = payment.id as string

  payment.number = 'changed, not saved'
  const first = await storage.find(id)
  t.equal(first?.number, 'A-1')
  t.not(first, payment)
  if (first !== null) {
    first.details.status = 'mutated'
    first.number = 'mutated'
  }
  const second = await storage.find(id)
  t.not(second, first)
  t.same(second?.details, { status: 'new' })
  t.equal(second?.number, 'A-1')
  t.ok(second instanceof Payment)
})

t.test('the stored record is a snapshot taken at update()', async (t) => {
  const storage = new MemoryStorage(Payment)
  const details = { status: 'new' }
  const payment = Object.assign(storage.create(), { details })
  await storage.update(payment)
  details.status = 'changed later'
  t.same((await storage.find(payment.id as string))?.details, { status: 'new' })
})

t.test('findBy() matches every criterion, dotted paths included', async (t) => {
  const storage = await storedPayments(['A', 'B', 'C', 'D'])
  t.same((await storage.findBy({ currencyCode: 'EUR' })).map((p) => p.number), ['A', 'B'])
  t.same((await storage.findBy({ currencyCode: 'USD', 'details.ref': 'D' })).map((p) => p.number), ['D'])
  t.same(await storage.findBy({ currencyCode: 'GBP' }), [])
  t.same((await storage.findBy({})).map((p) => p.number), ['A', 'B', 'C', 'D'])
})

t.test('findBy() skips `offset` matches and returns at most `limit`', async (t) => {
  const storage = await storedPayments(['A', 'B', 'C', 'D', 'E'])
  const numbers = async (options: { offset?: number, limit?: number }, criteria = {}) =>
    (await storage.findBy(criteria, options)).map((p) => p.number)
  t.same(await numbers({ limit: 2 }), ['A', 'B'])
  t.same(await numbers({ offset: 1, limit: 2 }), ['B', 'C'])
  t.same(await numbers({ offset: 3 }), ['D', 'E'])
  t.same(await numbers({ offset: 10 }), [])
  t.same(await numbers({ limit: 0 }), [])
  t.same(await numbers({ offset: 1, limit: 5 }, { currencyCode: 'USD' }), ['D', 'E'], 'offset counts matches only')
})

t.test('delete() removes the record', async (t) => {
  const storage = await storedPayments(['A', 'B'])
  const [a] = await storage.findBy({ number: 'A' })
  await storage.delete(a as Payment)
  t.equal(await storage.find((a as Payment).id as string), null)
  t.same((await storage.findBy({})).map((p) => p.number), ['B'])
})
