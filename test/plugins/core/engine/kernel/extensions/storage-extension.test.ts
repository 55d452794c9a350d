import t from 'tap'
import {
  ArrayObject, Capture, Checkpoint, CheckpointAction, Gateway, GetToken, HttpRedirect, Identity, MemoryStorageBackend, Payment,
  StorageExtension, StorageRegistry, Sync, UnitOfWork
} from '../../../../../../plugins/core/engine/index.ts'
import { CountingStorage, FnAction, FnGatewayAction, rejection } from '../../../../../helpers/engine.ts'

async function setup () {
  const storage = new CountingStorage(Payment)
  const storages = new StorageRegistry().add(Payment, storage)
  const payment = storage.create()
  payment.number = 'ORDER-1'
  await storage.update(payment)
  storage.updates = 0
  const gateway = new Gateway().addExtension(new StorageExtension(storages))
  return { storage, storages, payment, gateway, identity: storage.identify(payment) }
}

/** Capture → Sync → Sync, each level touching the payment, then whatever `finish` does. */
function nestedTouching (finish: () => void = () => {}) {
  return [
    new FnGatewayAction(Capture, async (request, gateway) => {
      (request.model as Payment).description = 'captured'
      await gateway.execute(new Sync(request.model))
      await gateway.execute(new Sync(request.model))
    }),
    new FnAction(Sync, (request: Sync) => {
      (request.model as Payment).clientId = 'client-7'
      finish()
    })
  ]
}

t.test('an Identity model is replaced by the stored model before actions see it', async (t) => {
  const { gateway, identity, payment } = await setup()
  const action = new FnAction(Capture)
  gateway.addAction(action)
  const request = new Capture(identity)
  await gateway.execute(request)
  t.ok(request.model instanceof Payment)
  t.equal((request.model as Payment).id, payment.id)
  t.equal(request.firstModel, request.model)
  t.equal(action.runs.length, 1)
})

t.test('every touched model is saved exactly once, when the outermost execute ends', async (t) => {
  const { gateway, identity, storage, payment } = await setup()
  for (const action of nestedTouching()) gateway.addAction(action)
  let updatesDuringNested = -1
  gateway.addExtension({ onPostExecute: (context) => { if (context.previous.length > 0) updatesDuringNested = storage.updates } })
  await gateway.execute(new Capture(identity))
  t.equal(updatesDuringNested, 0, 'nothing is saved while nested executes end')
  t.equal(storage.updates, 1)
  const stored = await storage.find(payment.id as string)
  t.equal(stored?.description, 'captured')
  t.equal(stored?.clientId, 'client-7')
})

t.test('models are saved once also when the chain ends with a reply or an error', async (t) => {
  const outcomes: Array<[string, unknown]> = [['reply', new HttpRedirect('https://psp.example')], ['error', new Error('declined')]]
  for (const [name, thrown] of outcomes) {
    const { gateway, identity, storage, payment } = await setup()
    for (const action of nestedTouching(() => { throw thrown })) gateway.addAction(action)
    t.equal(await rejection(gateway.execute(new Capture(identity))), thrown, name)
    t.equal(storage.updates, 1, `${name}: saved once`)
    t.equal((await storage.find(payment.id as string))?.description, 'captured', `${name}: changes kept`)
  }
})

t.test('a model an action puts on the request is saved too', async (t) => {
  const { gateway, storage } = await setup()
  const created = storage.create()
  gateway.addAction(new FnAction(Capture, (request: Capture) => { request.model = created }))
  await gateway.execute(new Capture({}))
  t.equal(storage.updates, 1)
  t.type(created.id, 'string')
})

t.test('models no storage supports, and requests without a model, are left alone', async (t) => {
  const { gateway, storage } = await setup()
  gateway.addAction(new FnAction(Capture)).addAction(new FnAction(GetToken))
  await gateway.execute(new Capture(new ArrayObject({ status: 'x' })))
  await gateway.execute(new Capture(null))
  await gateway.execute(new GetToken('hash'))
  t.equal(storage.updates, 0)
})

t.test('two concurrent chains on one gateway each save their own models when they end', async (t) => {
  const { gateway, storage } = await setup()
  const first = storage.create()
  const second = storage.create()
  await storage.update(first)
  await storage.update(second)
  storage.updates = 0
  let releaseFirst = () => {}
  const firstHeld = new Promise<void>((resolve) => { releaseFirst = resolve })
  gateway.addAction(new FnAction(Capture, async (request: Capture) => {
    const payment = request.model as Payment
    payment.description = `captured ${payment.id}`
    if (payment.id === first.id) await firstHeld
  }))
  const firstDone = gateway.execute(new Capture(storage.identify(first)))
  await gateway.execute(new Capture(storage.identify(second)))
  t.equal(storage.updates, 1, 'the second chain saved its model while the first still runs')
  releaseFirst()
  await firstDone
  t.equal(storage.updates, 2)
})

t.test('an identity no storage can load stays in place, so RequestNotSupported names it', async (t) => {
  const { storages } = await setup()
  const cases = [new Identity('missing', 'Payment'), new Identity('i-1', 'Invoice')]
  for (const identity of cases) {
    const seen = new FnAction(Sync)
    const gateway = new Gateway().addExtension(new StorageExtension(storages)).addAction(seen)
    await gateway.execute(new Sync(identity))
    t.equal(seen.runs[0]?.model, identity, `${identity}: the action got the identity itself`)
    await t.rejects(gateway.execute(new Capture(identity)), {
      code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED',
      message: new RegExp(`Capture\\{model: Identity\\}.*storage for "${identity.modelName}".*id "${identity.id}"`)
    })
  }
})

t.test('a model loaded and left unchanged is not written back, so a read never undoes a concurrent write', async (t) => {
  const { gateway, identity, storage, payment } = await setup()
  let concurrentWrite = async () => {}
  gateway.addAction(new FnAction(Sync, async () => { await concurrentWrite() }))
  concurrentWrite = async () => {
    const other = await storage.find(payment.id as string) as Payment
    other.description = 'captured elsewhere'
    await storage.update(other)
  }
  await gateway.execute(new Sync(identity))
  t.equal(storage.updates, 1, 'only the concurrent writer saved')
  t.equal((await storage.find(payment.id as string))?.description, 'captured elsewhere')

  concurrentWrite = async () => {}
  gateway.addAction(new FnAction(Capture, (request: Capture) => { (request.model as Payment).clientId = 'c-1' }))
  await gateway.execute(new Capture(identity))
  t.equal(storage.updates, 2, 'a changed model is saved')
  t.equal((await storage.find(payment.id as string))?.clientId, 'c-1')
})

t.test('with a unit of work, the saves wait in the unit until its owner commits it', async (t) => {
  const { gateway, identity, storage, storages, payment } = await setup()
  for (const action of nestedTouching()) gateway.addAction(action)
  const backend = new MemoryStorageBackend()
  const unitOf = () => new UnitOfWork({ backend, tokenStorage: backend.createTokenStorage() })
  const unit = unitOf()
  await gateway.execute(new Capture(identity), { unit })
  t.equal(unit.pending, 1, 'one save for the one touched model')
  t.equal((await storage.find(payment.id as string))?.description, '', 'the stored payment is unchanged until the commit')
  await unit.commit()
  t.equal(unit.written, 1)
  t.match(await storage.find(payment.id as string), { description: 'captured', clientId: 'client-7' })

  const unchanged = unitOf()
  await gateway.execute(new Sync(identity), { unit: unchanged })
  t.equal(unchanged.pending, 0, 'a model nobody changed is not queued either')
  t.ok(storages, 'the registry the extension saves through')
})

t.test('a Checkpoint stores what changed so far, once, and the end stores only what changed after it', async (t) => {
  const { gateway, identity, storage, payment } = await setup()
  const seen: Array<string | undefined> = []
  gateway.addAction(new CheckpointAction())
  gateway.addAction(new FnGatewayAction(Capture, async (request, gateway) => {
    (request.model as Payment).description = 'request id stored'
    await gateway.execute(new Checkpoint())
    seen.push((await storage.find(payment.id as string))?.description)
    await gateway.execute(new Checkpoint())
    ;(request.model as Payment).clientId = 'after the call'
  }))
  await gateway.execute(new Capture(identity))
  t.same(seen, ['request id stored'], 'stored before the action went on')
  t.equal(storage.updates, 2, 'the checkpoint, a second checkpoint with nothing new, then the end')
  t.match(await storage.find(payment.id as string), { description: 'request id stored', clientId: 'after the call' })
})

t.test('a Checkpoint that loses the compare-and-set fails the request before the provider call', async (t) => {
  const { gateway, identity, storage, payment } = await setup()
  let called = false
  gateway.addAction(new CheckpointAction())
  gateway.addAction(new FnGatewayAction(Capture, async (request, gateway) => {
    const other = await storage.find(payment.id as string) as Payment
    other.clientId = 'another writer'
    await storage.update(other)
    ;(request.model as Payment).description = 'stale'
    await gateway.execute(new Checkpoint())
    called = true
  }))
  await t.rejects(gateway.execute(new Capture(identity)), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  t.notOk(called)
  t.match(await storage.find(payment.id as string), { description: '', clientId: 'another writer' })
})

t.test('a storage of its own (not an AbstractStorage) gets the same read-never-writes and save-once rules', async (t) => {
  const records = new Map<string, string>()
  let updates = 0
  // The least a custom storage implements: models by value, no snapshot of its own.
  const custom = {
    modelName: 'Payment',
    create: () => new Payment(),
    support: (model: unknown): model is Payment => model instanceof Payment,
    async update (model: Payment) { updates++; records.set(model.id as string, JSON.stringify(model)) },
    async delete (model: Payment) { records.delete(model.id as string) },
    async find (id: string | Identity) {
      const json = records.get(id instanceof Identity ? id.id : id)
      return json === undefined ? null : Object.assign(new Payment(), JSON.parse(json) as object)
    },
    async findMany () { return [] },
    async findBy () { return [] },
    identify: (model: Payment) => new Identity(model.id as string, 'Payment'),
    versionOf: () => undefined
  }
  const payment = Object.assign(new Payment(), { id: 'custom-1', number: 'ORDER-9' })
  await custom.update(payment)
  updates = 0
  const gateway = new Gateway().addExtension(new StorageExtension(new StorageRegistry().add(Payment, custom)))
  gateway.addAction(new FnAction(Sync))
  gateway.addAction(new CheckpointAction())
  gateway.addAction(new FnGatewayAction(Capture, async (request, gateway) => {
    (request.model as Payment).description = 'before the checkpoint'
    await gateway.execute(new Checkpoint())
    await gateway.execute(new Checkpoint())
  }))
  await gateway.execute(new Sync(custom.identify(payment)))
  t.equal(updates, 0, 'a model loaded and left as read is not written')
  await gateway.execute(new Capture(custom.identify(payment)))
  t.equal(updates, 1, 'the checkpoint writes the change once; the second checkpoint and the end find nothing new')
  t.equal((await custom.find('custom-1'))?.description, 'before the checkpoint')
})
