import t from 'tap'
import { PaymentDetails } from '../../../../gateways/paypal-rest/index.ts'
import { BinaryStatus, Cancel, GetBinaryStatus, GetHumanStatus, Refund } from '../../../../plugins/core/index.ts'
import { approveAndReturn, engineSetup, preparePayment, reload, statusOf, toApproval } from '../fixtures/paywire.ts'
import { GATEWAY } from '../fixtures/shop.ts'

t.test('statuses of real PayPal payments, from PayPal\'s payment and sale states', async (t) => {
  const setup = await engineSetup(t)
  const gateway = setup.paywire.getGateway(GATEWAY)

  const fresh = await preparePayment(setup.paywire)
  t.equal(await statusOf(setup.paywire, fresh.payment), 'new')
  await toApproval(setup.paywire, fresh.token)
  t.equal(await statusOf(setup.paywire, fresh.payment), 'pending', 'created, waiting for the buyer')

  const captured = await preparePayment(setup.paywire)
  await approveAndReturn(setup, captured)
  t.equal(await statusOf(setup.paywire, captured.payment), 'captured')
  await gateway.execute(new Refund(await reload(setup.paywire, captured.payment)))
  t.equal(await statusOf(setup.paywire, captured.payment), 'refunded')

  const pending = await preparePayment(setup.paywire)
  await approveAndReturn(setup, pending, 'pending')
  t.equal(await statusOf(setup.paywire, pending.payment), 'pending', 'approved, but the sale is pending: not captured (Payum said captured)')

  const declined = await preparePayment(setup.paywire)
  await approveAndReturn(setup, declined, 'declined')
  t.equal(await statusOf(setup.paywire, declined.payment), 'failed', 'Payum said unknown')

  const canceled = await preparePayment(setup.paywire)
  await gateway.execute(new Cancel(canceled.payment))
  t.equal(await statusOf(setup.paywire, canceled.payment), 'canceled')
})

t.test('the same marks serve GetBinaryStatus, and the REST details record', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await approveAndReturn(setup, prepared)
  const binary = new GetBinaryStatus(await reload(setup.paywire, prepared.payment))
  await setup.paywire.getGateway(GATEWAY).execute(binary)
  t.equal(binary.value, BinaryStatus.CAPTURED)
  t.ok(binary.isCaptured())

  const details = new PaymentDetails()
  const status = new GetHumanStatus(details)
  await setup.paywire.getGateway(GATEWAY).execute(status)
  t.equal(status.value, 'new')
  details.state = 'expired'
  const expired = new GetHumanStatus(details)
  await setup.paywire.getGateway(GATEWAY).execute(expired)
  t.equal(expired.value, 'expired')
})

t.test('beside the status, how much moved: a partial refund reads refunded with refunded < captured', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire, { totalAmount: 150000, currencyCode: 'HUF' })
  const fresh = new GetHumanStatus(await reload(setup.paywire, prepared.payment))
  await setup.paywire.getGateway(GATEWAY).execute(fresh)
  t.equal(fresh.amounts, undefined, 'nothing known before there is a sale')
  await approveAndReturn(setup, prepared)
  await setup.paywire.getGateway(GATEWAY).execute(new Refund(await reload(setup.paywire, prepared.payment), { amount: 50000 }))
  const status = new GetHumanStatus(await reload(setup.paywire, prepared.payment))
  await setup.paywire.getGateway(GATEWAY).execute(status)
  t.equal(status.value, 'refunded')
  t.same(status.amounts, { captured: 150000, refunded: 50000, reversed: 0 }, 'minor units with ISO 4217\'s exponent (PayPal writes whole HUF)')
})
