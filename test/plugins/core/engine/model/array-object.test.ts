import t from 'tap'
import { ArrayObject, DetailsRecord } from '../../../../../plugins/core/engine/index.ts'

t.test('wraps a record without copying it: changes write through', async (t) => {
  const record: Record<string, unknown> = { amount: 100 }
  const bag = new ArrayObject(record)
  t.equal(bag.data, record)
  t.equal(bag.set('status', 'captured').set('paid', true), bag)
  t.same(record, { amount: 100, status: 'captured', paid: true })
  t.equal(bag.delete('paid'), bag)
  t.same(record, { amount: 100, status: 'captured' })
  t.same(new ArrayObject().data, {})
})

t.test('get returns the fallback only for missing or null values', async (t) => {
  const bag = new ArrayObject({ zero: 0, empty: '', no: false, nothing: null })
  t.equal(bag.get('zero', 5), 0)
  t.equal(bag.get('empty', 'x'), '')
  t.equal(bag.get('no', true), false)
  t.equal(bag.get('nothing', 'fallback'), 'fallback')
  t.equal(bag.get('missing', 'fallback'), 'fallback')
  t.equal(bag.get('missing'), undefined)
  t.ok(bag.has('zero'))
  t.notOk(bag.has('nothing'))
  t.notOk(bag.has('missing'))
})

t.test('defaults() only fills unset keys, so values already given win', async (t) => {
  const bag = new ArrayObject({ paid: false, currency: 'EUR', note: null })
  t.equal(bag.defaults({ paid: true, currency: 'USD', note: 'n', amount: 100 }), bag)
  t.same(bag.data, { paid: false, currency: 'EUR', note: 'n', amount: 100 })
})

t.test('replace() overwrites the given keys and keeps the others', async (t) => {
  const bag = new ArrayObject({ a: 1, b: 2 })
  t.equal(bag.replace({ b: 3, c: 4 }), bag)
  t.same(bag.data, { a: 1, b: 3, c: 4 })
})

t.test('getArray() returns the nested record writing through, creating it when missing', async (t) => {
  const record: Record<string, unknown> = { payer: { email: 'a@example.com' } }
  const bag = new ArrayObject(record)
  bag.getArray('payer').set('id', 'P-1')
  t.same(record.payer, { email: 'a@example.com', id: 'P-1' })
  bag.getArray('links').set('approve', 'https://psp.example')
  t.same(record.links, { approve: 'https://psp.example' })
})

t.test('validateNotEmpty() throws a coded error naming the first empty key and its owner, never a value', async (t) => {
  const bag = new ArrayObject({ client_id: 'id-1', secret: 'top-secret', zero: 0, off: false, empty: '', list: [], nothing: null })
  bag.validateNotEmpty(['client_id', 'secret', 'zero', 'off'])
  for (const key of ['empty', 'list', 'nothing', 'missing']) {
    t.throws(() => bag.validateNotEmpty(['client_id', key, 'secret'], 'acme'), {
      code: 'PAYWIRE_ERR_REQUIRED_OPTION',
      message: `Gateway "acme": option "${key}" is required and must not be empty.`
    }, key)
  }
  t.throws(() => bag.validateNotEmpty(['empty']), { message: /^Gateway "config": option "empty"/ })
  try {
    bag.validateNotEmpty(['secret', 'empty'])
  } catch (error) {
    t.notMatch((error as Error).message, 'top-secret')
  }
})

t.test('toUnsafeArray() copies; toUnsafeArrayWithoutLocal() also drops the local part', async (t) => {
  const record = { amount: 100, local: { note: 'shop only' } }
  const bag = new ArrayObject(record)
  const copy = bag.toUnsafeArray()
  t.same(copy, record)
  t.not(copy, record)
  t.same(bag.toUnsafeArrayWithoutLocal(), { amount: 100 })
  t.same(record, { amount: 100, local: { note: 'shop only' } }, 'the bag itself keeps local')
})

t.test('DetailsRecord is a storable details bag', async (t) => {
  const record = new DetailsRecord({ amount: 1 })
  t.ok(record instanceof ArrayObject)
  t.equal(record.id, undefined)
  t.equal(record.get('amount'), 1)
})
