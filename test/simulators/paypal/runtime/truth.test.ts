import t from 'tap'
import * as ids from '../../../../simulators/paypal/runtime/ids.ts'
import { bearer, createPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { orderRequest, ordersApi, paidOrder } from '../orders-v2/fixtures.ts'

t.test('payer ids are drawn from PayPal\'s alphabet', async (t) => {
  for (let index = 0; index < 200; index++) t.match(ids.newPayerId(), /^[2-9A-HJ-NP-Z]{13}$/)
})

t.test('trailing slashes are PayPal\'s paths; empty bodies pass whatever their content type, other bodies must be JSON', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const created = await app.inject({ method: 'POST', url: '/v1/payments/payment/', headers: auth, payload: paymentRequest() })
  t.equal(created.statusCode, 201)
  t.equal((await app.inject({ method: 'GET', url: `/v1/payments/payment/${created.json().id as string}/`, headers: auth })).statusCode, 200)
  const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' }
  const api = await ordersApi(t)
  const authorization = (await paidOrder(api, orderRequest({ intent: 'AUTHORIZE' }))).purchase_units[0].payments.authorizations[0]
  const voided = await api.app.inject({ method: 'POST', url: `/v2/payments/authorizations/${authorization.id as string}/void`, headers: { ...api.auth, 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(voided.statusCode, 204, 'the server SDK\'s empty form body')
  const payment = await createPayment(app, auth)
  const formBody = await app.inject({ method: 'POST', url: `/v1/payments/payment/${payment.id}/execute`, headers: form, payload: 'payer_id=X' })
  t.equal(formBody.statusCode, 415)
  t.equal(formBody.json().name, 'UNSUPPORTED_MEDIA_TYPE')
})
