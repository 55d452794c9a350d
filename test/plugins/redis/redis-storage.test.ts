import t from 'tap'
import { Identity, Payment } from '../../../plugins/core/engine/index.ts'
import { RedisStorage } from '../../../plugins/redis/index.ts'
import { decodeRecord, recordKey } from '../../../plugins/redis/keys.ts'
import { commandsSentBy, keysUnder, testRedis } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'storage')

let storages = 0
/** A storage of its own for each test, so lists and indexes start empty. */
function paymentStorage (indexes = ['number', 'clientEmail', 'details.id']): { storage: RedisStorage<Payment>, keyPrefix: string } {
  const keyPrefix = `${prefix}${++storages}:`
  return { storage: new RedisStorage(client, Payment, { keyPrefix, indexes }), keyPrefix }
}

async function savedPayment (storage: RedisStorage<Payment>, fields: Partial<Payment> = {}): Promise<Payment> {
  const payment = Object.assign(storage.create(), { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' }, fields)
  await storage.update(payment)
  return payment
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

t.test('update gives a new model an id, keeps it, and stores the JSON', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const payment = await savedPayment(storage, { details: { paid: true, nested: { list: [1, 'two'] } } })
  t.match(payment.id, /^[0-9a-f-]{36}$/)
  const id = payment.id
  payment.description = 'changed'
  await storage.update(payment)
  t.equal(payment.id, id, 'the id is stable')
  const key = recordKey(keyPrefix, 'Payment', id as string)
  t.same((await keysUnder(client, keyPrefix)).filter((name) => name.includes(':model:')), [key], 'one record')
  const stored = decodeRecord(await client.get(key) as string)
  t.equal(stored.version, 2, 'stored with its version')
  t.match(JSON.parse(stored.json), {
    id, number: 'ORDER-1', description: 'changed', totalAmount: 1999, details: { paid: true, nested: { list: [1, 'two'] } }
  })
  t.same(storage.identify(payment), new Identity(id as string, 'Payment'))
})

t.test('find answers a fresh copy each time', async (t) => {
  const { storage } = paymentStorage()
  const payment = await savedPayment(storage, { details: { paid: true } })
  const first = await storage.find(payment.id as string)
  const second = await storage.find(payment.id as string)
  t.ok(first instanceof Payment)
  t.not(first, payment)
  t.not(first, second)
  t.same(first, payment)
  if (first !== null) first.details.paid = false
  t.equal((await storage.find(payment.id as string))?.details.paid, true, 'changing a copy changes nothing until update')
  t.equal(await storage.find('no-such-id'), null)
})

t.test('find by identity checks the model name', async (t) => {
  const { storage } = paymentStorage()
  const payment = await savedPayment(storage)
  t.equal((await storage.find(new Identity(payment.id as string, 'Payment')))?.id, payment.id)
  t.equal(await storage.find(new Identity(payment.id as string, 'Payout')), null)
})

t.test('findMany answers in the order asked, null where missing, in one round trip', async (t) => {
  const { storage } = paymentStorage()
  const a = await savedPayment(storage, { number: 'A' })
  const b = await savedPayment(storage, { number: 'B' })
  let found: Array<Payment | null> = []
  const commands = await commandsSentBy(client, async () => {
    found = await storage.findMany([b.id as string, 'missing', a.id as string])
  })
  t.same(found.map((payment) => payment?.number ?? null), ['B', null, 'A'])
  t.ok(found[0] instanceof Payment)
  t.same(commands.map((command) => command.name), ['mget'])
  t.same(await storage.findMany([]), [])
})

t.test('update keeps createdAt and moves updatedAt', async (t) => {
  const { storage } = paymentStorage()
  const payment = await savedPayment(storage)
  const { createdAt, updatedAt } = payment
  t.match(createdAt, /^\d{4}-\d\d-\d\dT/)
  t.equal(updatedAt, createdAt)
  await tick()
  payment.description = 'again'
  await storage.update(payment)
  const stored = await storage.find(payment.id as string)
  t.equal(stored?.createdAt, createdAt)
  t.ok(String(stored?.updatedAt) > String(updatedAt), `${stored?.updatedAt} after ${updatedAt}`)
})

t.test('findBy on an indexed field reads the index', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const wanted = await savedPayment(storage, { number: 'ORDER-7', clientEmail: 'zoë@example.com', details: { id: 'PAY-7' } })
  await savedPayment(storage, { number: 'ORDER-8', clientEmail: 'al@example.com', details: { id: 'PAY-8' } })
  t.same((await storage.findBy({ number: 'ORDER-7' })).map((payment) => payment.id), [wanted.id])
  t.same((await storage.findBy({ clientEmail: 'zoë@example.com' })).map((payment) => payment.id), [wanted.id], 'non-ASCII values')
  t.same((await storage.findBy({ 'details.id': 'PAY-7' })).map((payment) => payment.id), [wanted.id], 'dotted path')
  t.same(await storage.findBy({ number: 'ORDER-9' }), [])
  t.same(await client.zrange(`${keyPrefix}index:{Payment}:number:ORDER-7`, '0', '-1'), [wanted.id])
  t.same(await client.zrange(`${keyPrefix}index:{Payment}:details.id:PAY-7`, '0', '-1'), [wanted.id])

  const commands = await commandsSentBy(client, async () => { await storage.findBy({ number: 'ORDER-7' }) })
  t.same(commands.map((command) => command.name), ['zrange', 'mget'], 'an index lookup, not a scan')
  t.equal(commands[0]?.args[0], `${keyPrefix}index:{Payment}:number:ORDER-7`)
})

t.test('an index path may go through an array position, as JavaScript reads it', async (t) => {
  const { storage, keyPrefix } = paymentStorage(['details.purchase_units.0.reference_id'])
  const payment = await savedPayment(storage, { details: { purchase_units: [{ reference_id: 'REF-1' }, { reference_id: 'REF-2' }] } })
  t.same((await storage.findBy({ 'details.purchase_units.0.reference_id': 'REF-1' })).map((found) => found.id), [payment.id])
  t.same(await storage.findBy({ 'details.purchase_units.0.reference_id': 'REF-2' }), [])
  t.same(await keysUnder(client, `${keyPrefix}index:`), [`${keyPrefix}index:{Payment}:details.purchase_units.0.reference_id:REF-1`])
})

t.test('an index follows the value when it changes', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const payment = await savedPayment(storage, { number: 'OLD', details: { id: 'PAY-OLD' } })
  payment.number = 'NEW'
  payment.details = { id: 'PAY-NEW' }
  await storage.update(payment)
  t.same(await storage.findBy({ number: 'OLD' }), [], 'the old value no longer finds it')
  t.same(await storage.findBy({ 'details.id': 'PAY-OLD' }), [])
  t.same((await storage.findBy({ number: 'NEW' })).map((found) => found.id), [payment.id])
  t.same((await storage.findBy({ 'details.id': 'PAY-NEW' })).map((found) => found.id), [payment.id])
  t.equal(await client.exists(`${keyPrefix}index:{Payment}:number:OLD`), 0, 'no empty index left behind')

  payment.number = ''
  await storage.update(payment)
  t.same(await storage.findBy({ number: 'NEW' }), [], 'an emptied value leaves the index')
  t.same((await storage.findBy({ number: '' })).map((found) => found.id), [payment.id], 'and is still found by a scan')
})

t.test('delete removes the record, its index entries and its place in the list', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const kept = await savedPayment(storage, { number: 'KEEP' })
  const gone = await savedPayment(storage, { number: 'GONE', clientEmail: 'x@example.com', details: { id: 'PAY-GONE' } })
  await storage.delete(gone)
  t.equal(await storage.find(gone.id as string), null)
  t.same(await storage.findBy({ number: 'GONE' }), [])
  t.same((await storage.findBy({})).map((payment) => payment.id), [kept.id])
  const keys = await keysUnder(client, keyPrefix)
  t.notOk(keys.some((key) => key.includes(gone.id as string) || key.includes('GONE')), keys.join('\n'))
  t.same(await client.zrange(`${keyPrefix}ids:{Payment}`, '0', '-1'), [kept.id])
})

t.test('findBy without criteria lists in creation order, with offset and limit', async (t) => {
  const { storage } = paymentStorage()
  const payments: Payment[] = []
  for (let index = 0; index < 30; index++) payments.push(await savedPayment(storage, { number: `N-${index}` }))
  const created = payments.map((payment) => payment.number)
  t.same((await storage.findBy({})).map((payment) => payment.number), created, 'oldest first, also within one millisecond')
  await storage.update(payments[0] as Payment)
  t.same((await storage.findBy({})).map((payment) => payment.number), created, 'an update keeps the place')
  t.same((await storage.findBy({}, { offset: 5, limit: 3 })).map((payment) => payment.number), created.slice(5, 8))
  t.same((await storage.findBy({}, { offset: 28 })).map((payment) => payment.number), created.slice(28))
  t.same((await storage.findBy({}, { limit: 2 })).map((payment) => payment.number), created.slice(0, 2))
  t.same(await storage.findBy({}, { limit: 0 }), [])
  t.same(await storage.findBy({}, { offset: 30 }), [])
})

t.test('non-indexed criteria are filtered over several pages of records', async (t) => {
  const { storage } = paymentStorage()
  const usd: string[] = []
  for (let index = 0; index < 450; index++) {
    const payment = await savedPayment(storage, { number: `N-${index}`, currencyCode: index % 3 === 0 ? 'USD' : 'EUR', clientEmail: index % 2 === 0 ? 'even@example.com' : 'odd@example.com' })
    if (payment.currencyCode === 'USD') usd.push(payment.number)
  }
  const numbers = (payments: Payment[]) => payments.map((payment) => payment.number)
  t.same(numbers(await storage.findBy({ currencyCode: 'USD' })), usd, 'all 150 matches, from every page')
  t.same(numbers(await storage.findBy({ currencyCode: 'USD' }, { offset: 60, limit: 50 })), usd.slice(60, 110), 'a window across the page boundary')
  t.same(numbers(await storage.findBy({ currencyCode: 'USD' }, { offset: 149 })), usd.slice(149))
  t.same(numbers(await storage.findBy({ currencyCode: 'USD', clientEmail: 'even@example.com' })),
    usd.filter((number) => Number(number.slice(2)) % 2 === 0), 'an indexed field narrows, the other filters')
  t.same(await storage.findBy({ currencyCode: 'GBP' }), [])
})

t.test('numbers are not indexed but still found', async (t) => {
  const { storage, keyPrefix } = paymentStorage(['totalAmount', 'number'])
  const cheap = await savedPayment(storage, { totalAmount: 5 })
  await savedPayment(storage, { totalAmount: 500 })
  t.same((await storage.findBy({ totalAmount: 5 })).map((payment) => payment.id), [cheap.id])
  t.same(await storage.findBy({ totalAmount: '5' }), [], 'values compare strictly')
  t.same(await keysUnder(client, `${keyPrefix}index:{Payment}:totalAmount`), [])
})

t.test('a record removed by hand is skipped, not an error', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const removed = await savedPayment(storage, { number: 'SAME' })
  const kept = await savedPayment(storage, { number: 'SAME' })
  await client.del(recordKey(keyPrefix, 'Payment', removed.id as string))
  t.same((await storage.findBy({ number: 'SAME' })).map((payment) => payment.id), [kept.id])
  t.same((await storage.findBy({ currencyCode: 'EUR' })).map((payment) => payment.id), [kept.id])
})

t.test('concurrent updates of different models from two storages keep every index right', async (t) => {
  const { storage, keyPrefix } = paymentStorage()
  const twin = new RedisStorage(client, Payment, { keyPrefix, indexes: ['number', 'clientEmail', 'details.id'] })
  const payments = await Promise.all(Array.from({ length: 40 }, (_, index) =>
    savedPayment(index % 2 === 0 ? storage : twin, { number: `C-${index % 4}`, clientEmail: 'same@example.com' })))
  await Promise.all(payments.map(async (payment, index) => {
    payment.number = `D-${index % 4}`
    await (index % 2 === 0 ? twin : storage).update(payment)
  }))
  t.equal((await storage.findBy({})).length, 40)
  t.equal((await storage.findBy({ clientEmail: 'same@example.com' })).length, 40)
  for (let group = 0; group < 4; group++) {
    t.same(await storage.findBy({ number: `C-${group}` }), [])
    t.equal((await storage.findBy({ number: `D-${group}` })).length, 10)
  }
  t.equal(new Set(payments.map((payment) => payment.id)).size, 40, 'forty distinct ids')
})

t.test('the modelName option shapes the keys and identities', async (t) => {
  const keyPrefix = `${prefix}named:`
  const storage = new RedisStorage(client, Payment, { keyPrefix, modelName: 'ShopPayment' })
  const payment = await savedPayment(storage)
  t.equal(await client.exists(recordKey(keyPrefix, 'ShopPayment', payment.id as string)), 1)
  t.same(storage.identify(payment), new Identity(payment.id as string, 'ShopPayment'))
  t.equal(await storage.find(new Identity(payment.id as string, 'Payment')), null)
  t.same((await storage.findBy({ number: 'ORDER-1' })).map((found) => found.id), [payment.id], 'no indexes: a scan')
})

t.test('without a key prefix, keys live under paywire:', async (t) => {
  const storage = new RedisStorage(client, Payment)
  const commands = await commandsSentBy(client, async () => { t.equal(await storage.find('no-such-id'), null) })
  t.same(commands, [{ name: 'get', args: [recordKey('paywire:', 'Payment', 'no-such-id')] }])
  t.match(recordKey('paywire:', 'Payment', 'no-such-id'), /^paywire:\{[\w-]{8}\}:model:Payment:no-such-id$/)
})
