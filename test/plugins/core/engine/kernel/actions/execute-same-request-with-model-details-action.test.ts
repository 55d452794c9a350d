import t from 'tap'
import {
  ArrayObject, BaseGetStatus, Capture, ExecuteSameRequestWithModelDetailsAction, Gateway, GetHumanStatus, GetToken, Identity,
  MemoryStorage, Payment, StorageExtension, StorageRegistry, Sync, Token
} from '../../../../../../plugins/core/engine/index.ts'
import { FnAction } from '../../../../../helpers/engine.ts'

t.test('supports model requests whose model aggregates details', async (t) => {
  const action = new ExecuteSameRequestWithModelDetailsAction()
  const token = Object.assign(new Token(), { details: new Identity('p-1', 'Payment') })
  t.ok(action.supports(new Capture(new Payment())))
  t.ok(action.supports(new Sync(token)))
  t.notOk(action.supports(new Sync(new Token())), 'a token without details (gateway-wide notify)')
  t.notOk(action.supports(new Capture(new ArrayObject({ details: {} }))), 'never a details bag itself')
  t.notOk(action.supports(new Capture({ details: {} })), 'plain records become details bags')
  t.notOk(action.supports(new Capture(Object.assign(new Payment(), { details: undefined }))))
  t.notOk(action.supports(new Capture(null)))
  t.notOk(action.supports(new GetToken('h')))
})

t.test('a token becomes its identity, the stored model, then the model\'s details', async (t) => {
  const payments = new MemoryStorage(Payment)
  const payment = Object.assign(payments.create(), { number: 'A-1', details: { status: 'captured' } })
  await payments.update(payment)
  const token = Object.assign(new Token(), { details: payments.identify(payment) })
  const models: unknown[] = []
  const gateway = new Gateway()
    .addExtension(new StorageExtension(new StorageRegistry().add(Payment, payments)))
    .addExtension({ onPreExecute: (context) => { models.push((context.request as GetHumanStatus).model) } })
    .addAction(new ExecuteSameRequestWithModelDetailsAction())
    .addAction(new FnAction(BaseGetStatus, (status: BaseGetStatus<unknown>) => {
      if ((status.model as ArrayObject).get('status') === 'captured') status.markCaptured()
    }))
  const status = new GetHumanStatus(token)
  await gateway.execute(status)
  t.equal(status.value, 'captured')
  t.ok(status.firstModel instanceof Payment)
  t.equal((status.firstModel as Payment).number, 'A-1')
  t.equal(models[0], token)
  t.ok(models[1] instanceof Payment, 'the storage extension loaded the identity')
  t.ok(models[2] instanceof ArrayObject)
})

t.test('details changed below are written back, also when the gateway fails', async (t) => {
  const gateway = new Gateway()
    .addAction(new ExecuteSameRequestWithModelDetailsAction())
    .addAction(new FnAction(Capture, (request: Capture) => {
      const bag = request.model as ArrayObject
      bag.data = { replaced: true }
      throw new Error('declined')
    }))
  const payment = Object.assign(new Payment(), { details: { before: true } })
  await t.rejects(gateway.execute(new Capture(payment)), { message: 'declined' })
  t.same(payment.details, { replaced: true })
})

t.test('details that are not a record are passed on as they are, and not written back', async (t) => {
  const identity = new Identity('p-1', 'Payment')
  const token = Object.assign(new Token(), { details: identity })
  let model: unknown
  const gateway = new Gateway()
    .addAction(new ExecuteSameRequestWithModelDetailsAction())
    .addAction(new FnAction(Sync, (request: Sync) => {
      model = request.model
      request.model = new Payment()
    }))
  await gateway.execute(new Sync(token))
  t.equal(model, identity)
  t.equal(token.details, identity)
})
