import t from 'tap'
import { DetailsRecord, MemoryStorage, Payment, PayoutModel, StorageRegistry } from '../../../../../plugins/core/engine/index.ts'

class SpecialPayment extends Payment {}
class Invoice {}

t.test('finds a storage by model class or by model, walking up to a registered parent class', async (t) => {
  const payments = new MemoryStorage(Payment)
  const registry = new StorageRegistry().add(Payment, payments)
  t.equal(registry.get(Payment), payments)
  t.equal(registry.get(new Payment()), payments)
  t.equal(registry.get(SpecialPayment), payments)
  t.equal(registry.get(new SpecialPayment()), payments)
  t.ok(registry.has(Payment))
  t.notOk(registry.has(SpecialPayment), 'has() is about registrations, not lookups')
})

t.test('an unknown model is a coded error listing the registered models', async (t) => {
  const registry = new StorageRegistry()
  t.throws(() => registry.get(Invoice), {
    code: 'PAYWIRE_ERR_STORAGE_NOT_REGISTERED',
    message: /^No storage is registered for model "Invoice"\. Storages exist for: none\. Call addStorage/
  })
  registry.add(Payment, new MemoryStorage(Payment)).add(PayoutModel, new MemoryStorage(PayoutModel))
  t.throws(() => registry.get(new Invoice()), { message: /model "Invoice"\. Storages exist for: Payment, Payout\./ })
})

t.test('two storages may not share a model name', async (t) => {
  const registry = new StorageRegistry().add(Payment, new MemoryStorage(Payment))
  t.throws(() => registry.add(DetailsRecord, new MemoryStorage(DetailsRecord, { modelName: 'Payment' })), {
    code: 'PAYWIRE_ERR_DUPLICATE_MODEL_NAME',
    message: /model name "Payment"/
  })
  t.doesNotThrow(() => registry.add(DetailsRecord, new MemoryStorage(DetailsRecord, { modelName: 'Details' })))
})

t.test('adding a storage for a registered class replaces it, and frees the old model name', async (t) => {
  const first = new MemoryStorage(Payment)
  const second = new MemoryStorage(Payment, { modelName: 'Order' })
  const registry = new StorageRegistry().add(Payment, first).add(Payment, second)
  t.equal(registry.get(Payment), second)
  t.equal(registry.getByModelName('Order'), second)
  t.equal(registry.getByModelName('Payment'), undefined)
  t.same(registry.names(), ['Order'])
  t.same(registry.all(), [second])
  const third = new MemoryStorage(Payment, { modelName: 'Order' })
  registry.add(Payment, third)
  t.equal(registry.getByModelName('Order'), third, 'same class, same name: replaced')
  t.doesNotThrow(() => registry.add(PayoutModel, new MemoryStorage(PayoutModel, { modelName: 'Payment' })))
})

t.test('supporting() finds the storage that persists a model, if any', async (t) => {
  const payments = new MemoryStorage(Payment)
  const registry = new StorageRegistry().add(Payment, payments)
  t.equal(registry.supporting(new SpecialPayment()), payments)
  t.equal(registry.supporting(new Invoice()), undefined)
  t.equal(registry.supporting(null), undefined)
})
