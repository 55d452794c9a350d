import t from 'tap'
import { AuthorizeAction, CancelAction, CaptureAction, PayoutAction, RefundAction } from '../../../../gateways/offline/index.ts'
import { ArrayObject, Authorize, Cancel, Capture, Payment, Payout, Refund } from '../../../../plugins/core/engine/index.ts'

function statusAfter (run: (details: ArrayObject) => void, details: Record<string, unknown>): unknown {
  const bag = new ArrayObject({ ...details })
  run(bag)
  return bag.get('status')
}

t.test('each action supports its request on offline details only', async (t) => {
  const pairs = [
    [new CaptureAction(), Capture], [new AuthorizeAction(), Authorize], [new PayoutAction(), Payout],
    [new RefundAction(), Refund], [new CancelAction(), Cancel]
  ] as const
  for (const [action, Request] of pairs) {
    t.ok(action.supports(new Request(new ArrayObject())), action.constructor.name)
    t.notOk(action.supports(new Request(new Payment())))
    const Other = pairs.find(([, Candidate]) => Candidate !== Request)?.[1] as typeof Capture
    t.notOk(action.supports(new Other(new ArrayObject())))
  }
})

t.test('Capture: paid → captured, else pending; a pending or authorized payment can be captured later', async (t) => {
  const capture = (bag: ArrayObject) => new CaptureAction().execute(new Capture(bag))
  t.equal(statusAfter(capture, { paid: true }), 'captured')
  t.equal(statusAfter(capture, { paid: false }), 'pending')
  t.equal(statusAfter(capture, {}), 'pending', 'paid must be true, not just present')
  t.equal(statusAfter(capture, { paid: 'yes' }), 'pending')
  t.equal(statusAfter(capture, { paid: true, status: 'pending' }), 'captured')
  t.equal(statusAfter(capture, { paid: true, status: 'authorized' }), 'captured')
})

t.test('Capture never revives a payment that moved on', async (t) => {
  const capture = (bag: ArrayObject) => new CaptureAction().execute(new Capture(bag))
  for (const status of ['captured', 'refunded', 'canceled', 'payedout']) {
    t.equal(statusAfter(capture, { paid: true, status }), status)
  }
})

t.test('Authorize: paid → authorized, else pending; only from new or pending', async (t) => {
  const authorize = (bag: ArrayObject) => new AuthorizeAction().execute(new Authorize(bag))
  t.equal(statusAfter(authorize, { paid: true }), 'authorized')
  t.equal(statusAfter(authorize, { paid: false }), 'pending')
  t.equal(statusAfter(authorize, { paid: true, status: 'pending' }), 'authorized')
  for (const status of ['authorized', 'captured', 'refunded', 'canceled']) {
    t.equal(statusAfter(authorize, { paid: true, status }), status)
  }
})

t.test('Payout: payout → payedout, else pending; only from new or pending', async (t) => {
  const payout = (bag: ArrayObject) => new PayoutAction().execute(new Payout(bag))
  t.equal(statusAfter(payout, { payout: true }), 'payedout')
  t.equal(statusAfter(payout, { payout: false }), 'pending')
  t.equal(statusAfter(payout, { payout: true, status: 'pending' }), 'payedout')
  t.equal(statusAfter(payout, { payout: true, status: 'canceled' }), 'canceled')
})

t.test('Cancel: only a pending or authorized payment becomes canceled', async (t) => {
  const cancel = (bag: ArrayObject) => new CancelAction().execute(new Cancel(bag))
  t.equal(statusAfter(cancel, { status: 'pending' }), 'canceled')
  t.equal(statusAfter(cancel, { status: 'authorized' }), 'canceled')
  for (const status of [undefined, 'captured', 'refunded', 'payedout', 'canceled']) {
    t.equal(statusAfter(cancel, status === undefined ? {} : { status }), status)
  }
})

t.test('Refund: a full refund by default, only from captured (or partly refunded)', async (t) => {
  const bag = new ArrayObject({ amount: 1000, status: 'captured' })
  new RefundAction().execute(new Refund(bag))
  t.same(bag.data, { amount: 1000, status: 'refunded', refunded_amount: 1000 })
  for (const status of [undefined, 'pending', 'authorized', 'canceled', 'payedout']) {
    const untouched = new ArrayObject(status === undefined ? { amount: 1000 } : { amount: 1000, status })
    new RefundAction().execute(new Refund(untouched))
    t.equal(untouched.get('status'), status)
    t.equal(untouched.get('refunded_amount'), undefined)
  }
})

t.test('Refund: partial refunds add up; more than what remains is a coded error', async (t) => {
  const bag = new ArrayObject({ amount: 1000, status: 'captured' })
  const refund = (amount?: number) => new RefundAction().execute(new Refund(bag, { amount }))
  refund(300)
  t.same(bag.data, { amount: 1000, status: 'refunded', refunded_amount: 300 })
  refund(200)
  t.equal(bag.get('refunded_amount'), 500)
  t.throws(() => refund(501), {
    code: 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED',
    statusCode: 400,
    message: 'Cannot refund 501 minor units: only 500 remain refundable.'
  })
  t.equal(bag.get('refunded_amount'), 500, 'a refused refund changes nothing')
  refund()
  t.equal(bag.get('refunded_amount'), 1000, 'no amount refunds the rest')
  refund()
  refund(0)
  t.equal(bag.get('refunded_amount'), 1000, 'nothing left: no change')
  t.throws(() => refund(1), { code: 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED', message: /only 0 remain/ })
})

t.test('Refund: the amount must be integer minor units', async (t) => {
  for (const amount of [-1, 1.5, Number.NaN]) {
    const bag = new ArrayObject({ amount: 1000, status: 'captured' })
    t.throws(() => new RefundAction().execute(new Refund(bag, { amount })), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', statusCode: 400 }, String(amount))
    t.equal(bag.get('status'), 'captured')
  }
})
