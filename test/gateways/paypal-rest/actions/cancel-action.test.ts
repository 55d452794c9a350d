import t from 'tap'
import { PaymentDetails } from '../../../../gateways/paypal-rest/index.ts'
import { Cancel } from '../../../../plugins/core/index.ts'
import { approveAndReturn, capture, engineSetup, preparePayment, reload, statusOf, toApproval } from '../fixtures/paywire.ts'
import { GATEWAY } from '../fixtures/shop.ts'

t.test('before the buyer approved: canceled in the shop, PayPal not called, never executed afterwards', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const calls = setup.http.requests.length
  await setup.paywire.getGateway(GATEWAY).execute(new Cancel(await reload(setup.paywire, prepared.payment)))
  t.equal(await statusOf(setup.paywire, prepared.payment), 'canceled')
  t.equal(setup.http.requests.length, calls, 'PayPal has no call for it')

  // The buyer approves at PayPal anyway and comes back: nothing is executed.
  const { redirectUrl } = setup.paypal.simulator.approve((await reload(setup.paywire, prepared.payment)).details.id)
  t.equal(await capture(setup.paywire, prepared.token, Object.fromEntries(new URL(redirectUrl).searchParams)), undefined)
  t.equal(await statusOf(setup.paywire, prepared.payment), 'canceled')
  t.equal(setup.paypal.simulator.counters().paymentsExecuted, 0)
})

t.test('a payment never sent to PayPal, and the REST details record, can be canceled too', async (t) => {
  const setup = await engineSetup(t)
  const { payment } = await preparePayment(setup.paywire)
  await setup.paywire.getGateway(GATEWAY).execute(new Cancel(payment))
  t.equal(await statusOf(setup.paywire, payment), 'canceled')
  const details = new PaymentDetails()
  await setup.paywire.getStorage(PaymentDetails).update(details)
  await setup.paywire.getGateway(GATEWAY).execute(new Cancel(details))
  t.equal((await setup.paywire.getStorage(PaymentDetails).find(details.idStorage as string))?.state, 'cancelled')
  t.same(setup.http.requests, [])
})

t.test('after the payment was executed: a coded 409 (refund it instead), nothing changes', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await approveAndReturn(setup, prepared)
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Cancel(await reload(setup.paywire, prepared.payment))), {
    code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED', statusCode: 409, message: 'Cancel is not possible for a payment in status "captured".'
  })
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
})
