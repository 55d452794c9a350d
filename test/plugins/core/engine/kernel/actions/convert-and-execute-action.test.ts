import t from 'tap'
import {
  ArrayObject, AuthorizePaymentAction, Authorize, BaseGetStatus, Capture, CapturePaymentAction, Convert, Gateway, HttpRedirect,
  Payment, Payout, PayoutModel, PayoutPayoutAction, Token
} from '../../../../../../plugins/core/engine/index.ts'
import { FnAction, rejection } from '../../../../../helpers/engine.ts'

/** A gateway with the generic action and a fake provider: status from details.status, convert copies the amount. */
function gatewayFor (onDetails: (request: Capture) => unknown = (request) => { (request.model as ArrayObject).set('status', 'done') }) {
  const converts: Convert[] = []
  const provider = new FnAction(Capture, onDetails)
  const gateway = new Gateway()
    .addAction(new CapturePaymentAction())
    .addAction(new AuthorizePaymentAction())
    .addAction(new PayoutPayoutAction())
    .addAction(new FnAction(BaseGetStatus, (status: BaseGetStatus<unknown>) => {
      const model = status.model
      if (model instanceof Payment || model instanceof PayoutModel) {
        if (model.details.status === undefined) status.markNew()
        else status.markPending()
      }
    }))
    .addAction(new FnAction(Convert, (convert: Convert) => {
      converts.push(convert)
      const source = convert.source as Payment
      convert.result = { ...source.details, amount: source.totalAmount }
    }))
    .addAction(provider)
    .addAction(new FnAction(Authorize, (request: Authorize) => { (request.model as ArrayObject).set('status', 'authorized') }))
    .addAction(new FnAction(Payout, (request: Payout) => { (request.model as ArrayObject).set('status', 'sent') }))
  return { gateway, converts, provider }
}

function payment (fields: Partial<Payment> = {}): Payment {
  return Object.assign(new Payment(), { totalAmount: 1234, currencyCode: 'EUR' }, fields)
}

t.test('supports its request class with its model class only', async (t) => {
  const capture = new CapturePaymentAction()
  t.ok(capture.supports(new Capture(new Payment())))
  t.notOk(capture.supports(new Capture(new PayoutModel())))
  t.notOk(capture.supports(new Authorize(new Payment())))
  t.notOk(capture.supports(new Capture({})))
  t.ok(new AuthorizePaymentAction().supports(new Authorize(new Payment())))
  t.ok(new PayoutPayoutAction().supports(new Payout(new PayoutModel())))
  t.notOk(new PayoutPayoutAction().supports(new Payout(new Payment())))
})

t.test('a new payment is converted once, then the same request runs on its details', async (t) => {
  const { gateway, converts, provider } = gatewayFor()
  const token = new Token()
  const model = payment({ details: { local: { note: 'kept' } } })
  const request = new Capture(model)
  request.token = token
  await gateway.execute(request)
  t.equal(converts.length, 1)
  t.equal(converts[0]?.source, model)
  t.equal(converts[0]?.to, 'array')
  t.equal(converts[0]?.token, token)
  t.same(model.details, { local: { note: 'kept' }, amount: 1234, status: 'done' })
  t.equal(provider.runs.length, 1)
  t.ok(request.model instanceof ArrayObject, 'the request now carries the details')
  t.equal(request.firstModel, model)
})

t.test('a payment that is not new is not converted again', async (t) => {
  const { gateway, converts } = gatewayFor()
  const model = payment({ details: { status: 'pending', amount: 1 } })
  await gateway.execute(new Capture(model))
  t.equal(converts.length, 0)
  t.same(model.details, { status: 'done', amount: 1 })
})

t.test('Authorize and Payout work the same way', async (t) => {
  const { gateway, converts } = gatewayFor()
  const authorized = payment()
  await gateway.execute(new Authorize(authorized))
  t.same(authorized.details, { amount: 1234, status: 'authorized' })
  const payout = Object.assign(new PayoutModel(), { totalAmount: 500, currencyCode: 'JPY' })
  await gateway.execute(new Payout(payout))
  t.same(payout.details, { amount: 500, status: 'sent' })
  t.equal(converts.length, 2)
})

t.test('a convert that sets no result leaves the details as they are', async (t) => {
  const gateway = new Gateway()
    .addAction(new CapturePaymentAction())
    .addAction(new FnAction(BaseGetStatus, (status: BaseGetStatus<unknown>) => { if (status.model instanceof Payment) status.markNew() }))
    .addAction(new FnAction(Convert))
    .addAction(new FnAction(Capture))
  const model = payment({ details: { existing: true } })
  await gateway.execute(new Capture(model))
  t.same(model.details, { existing: true })
})

t.test('an invalid amount or currency is a coded 400 error, before any convert', async (t) => {
  const cases: Array<[Partial<Payment>, string]> = [
    [{ totalAmount: -1 }, 'PAYWIRE_ERR_INVALID_AMOUNT'],
    [{ totalAmount: 12.5 }, 'PAYWIRE_ERR_INVALID_AMOUNT'],
    [{ totalAmount: Number.NaN }, 'PAYWIRE_ERR_INVALID_AMOUNT'],
    [{ totalAmount: 2 ** 53 }, 'PAYWIRE_ERR_INVALID_AMOUNT'],
    [{ totalAmount: '100' as never }, 'PAYWIRE_ERR_INVALID_AMOUNT'],
    [{ currencyCode: '' }, 'PAYWIRE_ERR_UNKNOWN_CURRENCY'],
    [{ currencyCode: 'EURO' }, 'PAYWIRE_ERR_UNKNOWN_CURRENCY']
  ]
  for (const [fields, code] of cases) {
    const { gateway, converts, provider } = gatewayFor()
    await t.rejects(gateway.execute(new Capture(payment(fields))), { code, statusCode: 400 }, JSON.stringify(fields))
    t.equal(converts.length, 0)
    t.equal(provider.runs.length, 0)
  }
})

t.test('details are written back also when the gateway replies or fails', async (t) => {
  const outcomes: unknown[] = [new HttpRedirect('https://psp.example/approve'), new Error('declined')]
  for (const outcome of outcomes) {
    const { gateway } = gatewayFor((request) => {
      const bag = request.model as ArrayObject
      bag.data = { ...bag.data, order_id: 'O-1' }
      throw outcome
    })
    const model = payment()
    t.equal(await rejection(gateway.execute(new Capture(model))), outcome)
    t.same(model.details, { amount: 1234, order_id: 'O-1' }, String(outcome))
  }
})
