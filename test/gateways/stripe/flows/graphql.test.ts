import t from 'tap'
import { paywireGraphql } from '../../../../plugins/graphql/index.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { GATEWAY, comeBack, startStripeShop, statusOf, submit, visit, type StripeShop } from '../fixtures/shop.ts'

async function backOffice (shop: StripeShop, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await shop.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query, variables }) })
  return response.json().data
}

const PAYMENT = `query ($id: ID!) { payment(id: $id) { __typename ... on Payment {
  status gatewayName totalAmount currencyCode capturedAmount refundedAmount reversedAmount details localDetails } } }`

t.test('GraphQL creates a Stripe payment, the buyer pays through its captureUrl, the back office reads, refunds and cannot cancel it', async (t) => {
  const shop = await startStripeShop(t, { beforeListen: async (app) => { await app.register(paywireGraphql, { mercurius: true, authorize: () => true }) } })
  const gateways = await backOffice(shop, '{ gateways { name factory supports { capture authorize refund cancel sync notify } } }')
  t.same(gateways.gateways.find((gateway: { name: string }) => gateway.name === GATEWAY), {
    name: GATEWAY, factory: 'stripe', supports: { capture: true, authorize: true, refund: true, cancel: true, sync: true, notify: true }
  })

  const created = await backOffice(shop, `mutation ($input: CreatePaymentInput!) { createPayment(input: $input) {
    __typename ... on PaymentCreated { captureUrl payment { id status } } ... on PaywireError { code message } } }`,
  { input: { gateway: GATEWAY, totalAmount: 4200, currencyCode: 'USD', number: 'GQL-1', description: 'Kettle', details: { cart: 'c-1' } } })
  t.match(created.createPayment, { __typename: 'PaymentCreated', payment: { status: 'NEW' } })
  const { id } = created.createPayment.payment
  const toStripe = await visit(created.createPayment.captureUrl)
  t.equal(toStripe.status, 302)
  t.equal((await comeBack((await submit(toStripe.location)).location)).status, 'captured')
  await shop.stripe.simulator.webhooks.waitForIdle()

  const read = (await backOffice(shop, PAYMENT, { id })).payment
  t.match(read, { status: 'CAPTURED', gatewayName: GATEWAY, totalAmount: 4200, currencyCode: 'USD', capturedAmount: 4200, refundedAmount: 0, reversedAmount: 0, localDetails: { cart: 'c-1' } })
  t.match(read.details, { id: /^pi_/, status: 'succeeded', currency: 'usd', checkout_session: { status: 'complete' } })
  t.notMatch(JSON.stringify(read), new RegExp(`${shop.key}|whsec_|client_secret|buyer@example\\.com`), 'no key, secret or payer data in the answer')
  const session = await shop.sdk.checkout.sessions.retrieve((await statusOf(shop, id)).details.checkout_session.id)
  t.equal(session.metadata?.cart, undefined, 'the shop\'s local details never reach Stripe')

  const refunded = await backOffice(shop, `mutation ($id: ID!, $amount: MinorUnits) { refundPayment(id: $id, amount: $amount) {
    __typename ... on PaymentRefunded { status payment { refundedAmount } } ... on PaywireError { code message } } }`, { id, amount: 1200 })
  t.same(refunded.refundPayment, { __typename: 'PaymentRefunded', status: 'REFUNDED', payment: { refundedAmount: 1200 } })
  await shop.stripe.simulator.webhooks.waitForIdle()
  const canceled = await backOffice(shop, `mutation ($id: ID!) { cancelPayment(id: $id) {
    __typename ... on PaymentCanceled { status } ... on PaywireError { code } } }`, { id })
  t.same(canceled.cancelPayment, { __typename: 'OperationNotAllowed', code: 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED' })
  await assertAgree(t, shop, id, 'refunded')

  // Stripe's refusal reaches the back office as a provider error with Stripe's code and Request-Id, nothing more.
  shop.stripe.simulator.faults.inject({ kind: 'rate_limit', method: 'POST', path: '/v1/refunds' })
  const refused = await backOffice(shop, `mutation ($id: ID!) { refundPayment(id: $id, amount: 100) {
    __typename ... on ProviderError { code message provider providerCode debugId } } }`, { id })
  t.match(refused.refundPayment, { __typename: 'ProviderError', code: 'PAYWIRE_ERR_PROVIDER', provider: 'Stripe', providerCode: 'rate_limit', debugId: /^req_/, message: 'Stripe refused the request (rate_limit).' })
  shop.stripe.simulator.disputes.open((await statusOf(shop, id)).details.latest_charge.id)
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.match((await backOffice(shop, PAYMENT, { id })).payment, { status: 'SUSPENDED', refundedAmount: 1200 }, 'the rate-limited refund moved nothing; then the dispute suspends the payment')
})
