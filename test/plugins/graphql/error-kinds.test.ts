/*
 * GraphQL answers coded errors by their kind: a gateway's codes (PayPal Checkout's, Stripe's,
 * one written in this file) become typed errors without the plugin naming them, and what the
 * caller got wrong is logged below error level.
 */
import createError from '@fastify/error'
import Stripe from 'stripe'
import t from 'tap'
import { codedError as stripeCodedError } from '../../../gateways/stripe/index.ts'
import {
  ArrayObject, BaseGetStatus, CoreGatewayFactory, Refund, withKind, type Action, type ActionEntry
} from '../../../plugins/core/index.ts'
import { paywireGraphql } from '../../../plugins/graphql/index.ts'
import { captureOf, pay, startCheckoutShop, statusOf } from '../../gateways/paypal-checkout/fixtures/shop.ts'
import { ADMIN, REFUND, buildGraphqlApp, gql, storedPayment } from './fixtures.ts'

/** Codes no part of Paywire knows: only their kinds say what they are. */
const ACME_CARD_DECLINED = withKind('instrument_declined', createError('PAYWIRE_ERR_ACME_CARD_DECLINED', 'Acme declined the card.', 402))
const ACME_REFUND_WINDOW_CLOSED = withKind('not_allowed', createError('PAYWIRE_ERR_ACME_REFUND_WINDOW_CLOSED', 'Acme refunds within 90 days only.', 409))
const ACME_LOCKED = withKind('busy', createError('PAYWIRE_ERR_ACME_LOCKED', 'Acme is settling this payment.', 409))
const ACME_BAD_REASON = withKind('invalid_request', createError('PAYWIRE_ERR_ACME_BAD_REASON', 'Acme needs a refund reason.', 400))
const ACME_NO_SUCH_CHARGE = withKind('not_found', createError('PAYWIRE_ERR_ACME_NO_SUCH_CHARGE', 'Acme has no such charge.', 404))

/** A gateway whose refunds fail with the error the test puts in `failure.error`. */
function acmeFactory (failure: { error?: Error }) {
  class AcmeStatus implements Action {
    supports (request: unknown): boolean {
      return request instanceof BaseGetStatus && request.model instanceof ArrayObject
    }

    execute (request: BaseGetStatus<unknown>): void {
      request.markCaptured()
    }
  }
  class AcmeRefund implements Action {
    supports (request: unknown): boolean {
      return request instanceof Refund && request.model instanceof ArrayObject
    }

    execute (): void {
      if (failure.error !== undefined) throw failure.error
    }
  }
  return new (class extends CoreGatewayFactory {
    override getActions (): ActionEntry[] {
      return [...super.getActions(), AcmeStatus, AcmeRefund]
    }
  })()
}

async function acmeApp (t: { teardown: (close: () => Promise<void>) => void }, failure: { error?: Error }, logs?: string[]) {
  const { app } = await buildGraphqlApp({
    logs,
    logLevel: 'info',
    paywire: { gateways: { acme: { factory: 'acme' } }, configure: (builder) => { builder.addGatewayFactory('acme', acmeFactory(failure)) } }
  })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'acme', details: { id: 'ch_1' } })
  return { app, id: payment.id as string }
}

t.test('a coded error defined here, with a kind and no table entry, answers the type of its kind', async (t) => {
  const failure: { error?: Error } = {}
  const { app, id } = await acmeApp(t, failure)
  failure.error = new ACME_CARD_DECLINED()
  t.same((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, {
    __typename: 'ProviderError', code: 'PAYWIRE_ERR_ACME_CARD_DECLINED', message: 'acme refused the request (PAYWIRE_ERR_ACME_CARD_DECLINED).', provider: 'acme', providerCode: 'PAYWIRE_ERR_ACME_CARD_DECLINED', debugId: null
  }, 'no provider names on the error: its gateway and its own code stand in')
  failure.error = Object.assign(new ACME_CARD_DECLINED(), { provider: 'Acme', providerCode: 'do_not_honor', debugId: 'acme-req-1' })
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, { __typename: 'ProviderError', provider: 'Acme', providerCode: 'do_not_honor', debugId: 'acme-req-1' })
  failure.error = new ACME_REFUND_WINDOW_CLOSED()
  t.same((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, {
    __typename: 'OperationNotAllowed', code: 'PAYWIRE_ERR_ACME_REFUND_WINDOW_CLOSED', message: 'Acme refunds within 90 days only.', operation: 'refundPayment', status: 'CAPTURED'
  })
  failure.error = new ACME_LOCKED()
  t.same((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, { __typename: 'PaymentBusy', code: 'PAYWIRE_ERR_ACME_LOCKED', message: 'Acme is settling this payment.' })
  failure.error = new ACME_BAD_REASON()
  t.same((await gql(app, REFUND, { id, amount: 5 }, ADMIN)).data.refundPayment, {
    __typename: 'InvalidInput', code: 'PAYWIRE_ERR_ACME_BAD_REASON', message: 'Acme needs a refund reason.', field: 'amount'
  })
})

t.test('a Stripe decline or refusal maps by the kind the gateway gives it', async (t) => {
  const failure: { error?: Error } = {}
  const { app, id } = await acmeApp(t, failure)
  const declined = stripeCodedError(new Stripe.errors.StripeCardError({ type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', statusCode: 402, requestId: 'req_declined' }))
  t.equal((declined as { kind?: string }).kind, 'instrument_declined')
  failure.error = declined
  t.same((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, {
    __typename: 'ProviderError', code: 'PAYWIRE_ERR_PROVIDER', message: 'Stripe refused the request (card_declined).', provider: 'Stripe', providerCode: 'card_declined', debugId: 'req_declined'
  })
  const refused = stripeCodedError(new Stripe.errors.StripeInvalidRequestError({ type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge ch_1 has already been refunded.', statusCode: 400, requestId: 'req_refused' }))
  t.equal((refused as { kind?: string }).kind, 'provider_refused')
  failure.error = refused
  t.match((await gql(app, REFUND, { id }, ADMIN)).data.refundPayment, { __typename: 'ProviderError', providerCode: 'charge_already_refunded', debugId: 'req_refused' })
  const kinds = [
    new Stripe.errors.StripeCardError({ code: 'authentication_required', statusCode: 402 }),
    new Stripe.errors.StripeRateLimitError({ code: 'rate_limit', statusCode: 429 }),
    new Stripe.errors.StripeAPIError({ statusCode: 500 }),
    new Stripe.errors.StripeConnectionError({})
  ].map((error) => (stripeCodedError(error) as { kind?: string }).kind)
  t.same(kinds, ['payer_action_required', 'provider_unavailable', 'provider_unavailable', 'provider_unavailable'])
})

t.test('refundPayment on a paypal_checkout payment PayPal refuses answers ProviderError, not an internal error', async (t) => {
  const shop = await startCheckoutShop(t, { beforeListen: async (app) => { await app.register(paywireGraphql, { mercurius: true, authorize: () => true }) } })
  const journey = await pay(shop)
  t.equal(journey.status, 'captured')
  // Refunded in PayPal's dashboard; its webhook is held, so the shop still reads it captured.
  await shop.paypal.simulator.webhooks.waitForIdle()
  shop.paypal.simulator.webhooks.pause()
  t.teardown(() => shop.paypal.simulator.webhooks.resume())
  const captureId = captureOf((await statusOf(shop, journey.id)).details).id
  const dashboard = await fetch(`${shop.endpoint}/v2/payments/captures/${captureId}/refund`, {
    method: 'POST', headers: { authorization: `Bearer ${shop.paypal.simulator.issueAccessToken(shop.client.clientId)}`, 'content-type': 'application/json' }, body: '{}'
  })
  t.equal(dashboard.status, 201)
  const answer = await gql(shop.app, REFUND, { id: journey.id })
  t.match(answer.data.refundPayment, { __typename: 'ProviderError', code: 'PAYWIRE_ERR_PAYPAL_ORDER_REFUSED', message: 'PayPal refused the request (CAPTURE_FULLY_REFUNDED).', provider: 'PayPal', providerCode: 'CAPTURE_FULLY_REFUNDED', debugId: /^\w+$/ })
  t.equal(answer.errors, undefined)
})

t.test('client errors are logged at info, never at error; failures of the application still are', async (t) => {
  const logs: string[] = []
  const failure: { error?: Error } = {}
  const { app, id } = await acmeApp(t, failure, logs)
  const levels = () => logs.map((line) => JSON.parse(line) as { level: number, msg: string, err?: { code?: string } }).filter((line) => line.msg.startsWith('paywire-graphql'))

  // A NUL character no storage keeps: PAYWIRE_ERR_RECORD_NOT_STORABLE (400), a typed answer.
  const created = await gql(app, 'mutation ($input: CreatePaymentInput!) { createPayment(input: $input) { __typename ... on PaywireError { code } ... on InvalidInput { field } } }',
    { input: { gateway: 'cash', totalAmount: 100, currencyCode: 'EUR', details: { note: 'mug\u0000' } } })
  t.same(created.data.createPayment, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_RECORD_NOT_STORABLE', field: 'input' })
  // A 404 no result type has: a GraphQL error with its code and message, logged at info.
  failure.error = new ACME_NO_SUCH_CHARGE()
  const missing = await gql(app, REFUND, { id }, ADMIN)
  t.match(missing.errors, [{ message: 'Acme has no such charge.', extensions: { code: 'PAYWIRE_ERR_ACME_NO_SUCH_CHARGE' } }])
  t.match(levels(), [{ level: 30, msg: 'paywire-graphql: request refused', err: { code: 'PAYWIRE_ERR_ACME_NO_SUCH_CHARGE' } }])

  failure.error = new Error('the gateway broke')
  await gql(app, REFUND, { id }, ADMIN)
  t.match(levels().at(-1), { level: 50, msg: 'paywire-graphql: unexpected error' }, 'a bug is still an error')
  const records = logs.map((line) => JSON.parse(line) as { level: number })
  t.equal(records.filter((line) => line.level >= 50).length, 1, 'nothing else at error level')
})
