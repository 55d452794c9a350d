import t from 'tap'
import {
  ArrayObject, Authorize, Cancel, Capture, Generic, Identity, Notify, Payment, Payout, Refund, Sync, Token
} from '../../../../../plugins/core/engine/index.ts'

t.test('a request made with a token keeps it as token and never as firstModel', async (t) => {
  const token = new Token()
  const request = new Capture(token)
  t.equal(request.model, token)
  t.equal(request.token, token)
  t.equal(request.firstModel, undefined)
  t.equal(new Capture(new Payment()).token, null)
})

t.test('firstModel is the first model that is neither a Token nor an Identity, and is set once', async (t) => {
  const request = new Capture(new Token())
  request.model = new Identity('p-1', 'Payment')
  t.equal(request.firstModel, undefined)
  request.model = null
  request.model = undefined
  t.equal(request.firstModel, undefined)
  const payment = new Payment()
  request.model = payment
  t.equal(request.firstModel, payment)
  request.model = new ArrayObject()
  request.model = new Payment()
  t.equal(request.firstModel, payment)

  const later = new Capture(new Payment())
  later.model = new Token()
  t.equal(later.token, null, 'only the constructor\'s model can be the token')
})

t.test('plain records are wrapped in an ArrayObject that writes through; other objects are kept', async (t) => {
  const details: Record<string, unknown> = { amount: 100 }
  const request = new Capture(details)
  t.ok(request.model instanceof ArrayObject)
  const bag = request.model as ArrayObject
  t.equal(bag.data, details)
  bag.set('status', 'captured')
  t.equal(details.status, 'captured')
  t.equal(request.firstModel, bag)

  const bare = Object.create(null) as Record<string, unknown>
  t.ok(new Capture(bare).model instanceof ArrayObject)
  const payment = new Payment()
  t.equal(new Capture(payment).model, payment)
  const list = [1, 2]
  t.equal(new Capture(list).model, list, 'arrays are not records')
})

t.test('every model request is a Generic; Refund and Capture carry an optional amount', async (t) => {
  for (const Request of [Capture, Authorize, Refund, Cancel, Notify, Sync, Payout]) {
    t.ok(new Request({}) instanceof Generic, Request.name)
  }
  t.equal(new Refund({}).amount, undefined, 'no amount: a full refund')
  t.equal(new Refund({}, { amount: 250 }).amount, 250)
  t.equal(new Capture({}).amount, undefined, 'no amount: all that was authorized')
  t.equal(new Capture({}, { amount: 600 }).amount, 600, 'a partial capture of an authorization')
})
