import t from 'tap'
import { Sync } from '../../../../plugins/core/index.ts'
import { approveAndReturn, engineSetup, preparePayment, reload, statusOf, toApproval } from '../fixtures/paywire.ts'
import { GATEWAY, saleOf } from '../fixtures/shop.ts'

t.test('sync takes PayPal\'s current view: a sale that cleared while no webhook came reads captured', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await approveAndReturn(setup, prepared, 'pending')
  t.equal(await statusOf(setup.paywire, prepared.payment), 'pending')
  setup.paypal.simulator.settleSale(saleOf((await reload(setup.paywire, prepared.payment)).details).id, 'completed')

  await setup.paywire.getGateway(GATEWAY).execute(new Sync(await reload(setup.paywire, prepared.payment)))
  t.equal(await statusOf(setup.paywire, prepared.payment), 'captured')
  const { details } = await reload(setup.paywire, prepared.payment)
  t.ok(details.paywire_key !== undefined && details.paywire_request_ids.execute !== undefined, 'Paywire\'s own fields are kept')
  t.ok(setup.logger.calls().includes(`GET /v1/payments/payment/${details.id as string} 200`))
})

t.test('sync of a payment PayPal has not seen yet calls nothing', async (t) => {
  const setup = await engineSetup(t)
  const { payment } = await preparePayment(setup.paywire)
  await setup.paywire.getGateway(GATEWAY).execute(new Sync(payment))
  t.same(setup.http.requests, [])
  t.equal(await statusOf(setup.paywire, payment), 'new')
})

t.test('sync of a payment PayPal does not know is a coded provider error', async (t) => {
  const setup = await engineSetup(t)
  const prepared = await preparePayment(setup.paywire)
  await toApproval(setup.paywire, prepared.token)
  const payment = await reload(setup.paywire, prepared.payment)
  payment.details.id = 'PAYID-NOTKNOWNATPAYPAL00000000'
  await t.rejects(setup.paywire.getGateway(GATEWAY).execute(new Sync(payment)), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'INVALID_RESOURCE_ID' })
})
