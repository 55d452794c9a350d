import t from 'tap'
import { ConvertPaymentAction, ConvertPayoutAction } from '../../../../gateways/offline/index.ts'
import { Convert, Payment, PayoutModel } from '../../../../plugins/core/engine/index.ts'

function payment (details: Record<string, unknown> = {}): Payment {
  return Object.assign(new Payment(), {
    number: 'A-1', description: 'Two books', clientEmail: 'b@example.com', clientId: 'c-1', totalAmount: 1234, currencyCode: 'EUR', details
  })
}

t.test('ConvertPaymentAction supports Convert of a Payment to an array only', async (t) => {
  const action = new ConvertPaymentAction()
  t.ok(action.supports(new Convert(new Payment(), 'array')))
  t.notOk(action.supports(new Convert(new Payment(), 'json')))
  t.notOk(action.supports(new Convert(new PayoutModel(), 'array')))
  t.notOk(action.supports({ source: new Payment(), to: 'array' }))
})

t.test('a payment becomes offline details, paid by default', async (t) => {
  const request = new Convert(payment(), 'array')
  new ConvertPaymentAction().execute(request)
  t.same(request.result, {
    amount: 1234, currency: 'EUR', number: 'A-1', description: 'Two books', client_email: 'b@example.com', client_id: 'c-1', paid: true
  })
})

t.test('details already set win, so paid: false is kept; the payment itself is not changed', async (t) => {
  const source = payment({ paid: false, amount: 999, local: { note: 'n' } })
  const request = new Convert(source, 'array')
  new ConvertPaymentAction().execute(request)
  t.match(request.result, { paid: false, amount: 999, currency: 'EUR', local: { note: 'n' } })
  t.same(source.details, { paid: false, amount: 999, local: { note: 'n' } })
  t.not(request.result, source.details)
})

t.test('a payout becomes offline payout details, sent by default; payout: false is kept', async (t) => {
  const action = new ConvertPayoutAction()
  const payout = Object.assign(new PayoutModel(), {
    recipientId: 'r-1', recipientEmail: 'r@example.com', description: 'Refund of deposit', totalAmount: 500, currencyCode: 'JPY'
  })
  t.ok(action.supports(new Convert(payout, 'array')))
  t.notOk(action.supports(new Convert(new Payment(), 'array')))
  t.notOk(action.supports(new Convert(payout, 'json')))
  const request = new Convert(payout, 'array')
  action.execute(request)
  t.same(request.result, {
    amount: 500, currency: 'JPY', description: 'Refund of deposit', recipient_email: 'r@example.com', recipient_id: 'r-1', payout: true
  })
  payout.details = { payout: false }
  const held = new Convert(payout, 'array')
  action.execute(held)
  t.match(held.result, { payout: false, amount: 500 })
})
