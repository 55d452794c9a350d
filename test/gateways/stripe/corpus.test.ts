/*
 * Judged by Stripe's own documentation: the gateway is fed Stripe's documented sample objects
 * (fixtures/corpus.ts, each naming its reference page) by a plain loopback server that is not
 * the simulator, and the documented events carrying them, signed as Stripe signs them
 * (https://docs.stripe.com/webhooks#verify-manually), reach the notify route. Each scenario ends
 * in the status, amounts and payment events Stripe's documentation implies.
 */
import { randomUUID } from 'node:crypto'
import Fastify from 'fastify'
import Stripe from 'stripe'
import t from 'tap'
import { request } from 'undici'
import { stripeGateway } from '../../../gateways/stripe/index.ts'
import { ArrayObject, GetHumanStatus, Payment, paywire, type AnyPaywireEvent } from '../../../plugins/core/index.ts'
import { startCorpusServer } from './fixtures/corpus-server.ts'
import { sampleCardError, sampleCharge, sampleDispute, sampleEvent, samplePaymentIntent, sampleRefund, sampleSession } from './fixtures/corpus.ts'
import { readDone, visit, type Teardown } from './fixtures/shop.ts'

const SECRET = 'whsec_corpus'
const GATEWAY = 'corpus'

async function corpusShop (t: Teardown & { equal: (a: unknown, b: unknown, message: string) => unknown }) {
  const server = await startCorpusServer(t)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywire)
  await app.register(stripeGateway)
  const events: string[] = []
  app.paywire.onAny((event: AnyPaywireEvent) => { events.push(event.type) })
  app.post('/checkout', async (_request, reply) => {
    const storage = app.paywire.getStorage(Payment)
    const payment = Object.assign(storage.create(), { gatewayName: GATEWAY, number: `CORPUS-${randomUUID()}`, totalAmount: 2000, currencyCode: 'USD' })
    await storage.update(payment)
    const token = await app.paywire.getTokenFactory().createCaptureToken(GATEWAY, payment, 'done')
    return reply.header('x-payment-id', payment.id).redirect(token.targetUrl, 302)
  })
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  app.paywire.addGateway(GATEWAY, { factory: 'stripe', secret_key: 'sk_test_corpus', webhook_secrets: SECRET, host: '127.0.0.1', port: server.port, protocol: 'http', max_network_retries: 0 })
  let delivered = 0

  return {
    app,
    server,
    events,
    /** The buyer starts paying: Paywire creates the session (the sample, `adjusted:` amount_total 2000 and the ids Paywire sent). */
    async start (): Promise<{ id: string, captureUrl: string }> {
      server.state.session = { ...sampleSession(), amount_total: 2000, amount_subtotal: 2000 }
      const { id, captureUrl } = await this.checkout()
      const toStripe = await visit(captureUrl)
      t.equal(toStripe.location, server.state.session.url, 'sent to the session\'s url')
      return { id, captureUrl }
    },
    async checkout (): Promise<{ id: string, captureUrl: string }> {
      const response = await request(`${origin}/checkout`, { method: 'POST' })
      await response.body.dump()
      return { id: String(response.headers['x-payment-id']), captureUrl: String(response.headers.location) }
    },
    /** A documented event, signed with the endpoint's secret, to the notify route. */
    async deliver (type: string, object: Record<string, any>): Promise<number> {
      const payload = JSON.stringify({ ...sampleEvent(type, object), id: `evt_1NG8Du2eZvKYlo2CUI79vXW${++delivered}` })
      const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET })
      const answer = await visit(`${origin}/payment/notify/unsafe/${GATEWAY}`, { body: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } })
      await app.paywire.events.drain()
      return answer.status
    },
    async read (id: string): Promise<{ status: string, amounts: unknown, details: Record<string, any> }> {
      const payment = await app.paywire.getStorage(Payment).find(id) as Payment
      const status = new GetHumanStatus(new ArrayObject(structuredClone(payment.details)))
      await app.paywire.getGateway(GATEWAY).execute(status)
      return { status: status.value, amounts: status.amounts, details: payment.details }
    }
  }
}

type Shop = Awaited<ReturnType<typeof corpusShop>>

/** The sample PaymentIntent, `adjusted:` to the scenario's status and amounts, naming the payment and the sample charge. */
function intent (shop: Shop, id: string, fields: Record<string, unknown>): void {
  shop.server.state.intent = { ...samplePaymentIntent(), metadata: { paywire_payment: id }, payment_method_types: ['card'], ...fields }
}

/** A payment the buyer paid: the session completed, the PaymentIntent succeeded with the sample charge (`adjusted:` its amount and PaymentIntent). */
async function paid (t: Teardown & { equal: (a: unknown, b: unknown, message: string) => unknown }): Promise<{ shop: Shop, id: string }> {
  const shop = await corpusShop(t)
  const { id } = await shop.start()
  const { state } = shop.server
  state.charge = { ...sampleCharge(), amount: 2000, amount_captured: 2000, payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', metadata: { paywire_payment: id } }
  intent(shop, id, { status: 'succeeded', amount_received: 2000, latest_charge: state.charge.id })
  Object.assign(state.session as object, { status: 'complete', payment_status: 'paid', payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', url: null })
  t.equal(await shop.deliver('checkout.session.completed', state.session as object), 204, 'checkout.session.completed taken')
  return { shop, id }
}

t.test('checkout.session.completed with a succeeded PaymentIntent: captured; the buyer\'s return reads nothing new', async (t) => {
  const { shop, id } = await paid(t)
  t.match(await shop.read(id), { status: 'captured', amounts: { captured: 2000, refunded: 0, reversed: 0 }, details: { id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', latest_charge: { id: 'ch_3MmlLrLkdIwHu7ix0snN0B15', outcome: { type: 'authorized' } } } })
  t.same(shop.events, ['payment.pending', 'payment.captured'])
  t.same(shop.server.requests.slice(1), ['GET /v1/checkout/sessions/cs_test_a11YYufWQzNY63zpQ6QSNRQhkUpVph4WRmzW0zWJO2znZKdVujZ0N0S22u', 'GET /v1/refunds', 'GET /v1/disputes'],
    'the session with its PaymentIntent and charge, then its refunds and disputes')
  const before = shop.server.requests.length
  // adjusted: the sample's metadata names the payment, as every PaymentIntent Paywire makes does.
  t.equal(await shop.deliver('payment_intent.created', { ...samplePaymentIntent(), metadata: { paywire_payment: id } }), 204, 'an older event, out of order')
  t.equal((await shop.read(id)).status, 'captured', 'state comes from Stripe, not the event: nothing moves back')
  t.same(shop.server.requests.slice(before), ['GET /v1/payment_intents/pi_3MtwBwLkdIwHu7ix28a3tqPa', 'GET /v1/refunds', 'GET /v1/disputes'], 'it was read again')
  t.same(shop.events, ['payment.pending', 'payment.captured'])
})

t.test('payment_intent.amount_capturable_updated (manual capture): authorized; payment_intent.canceled by Stripe (automatic): expired', async (t) => {
  const shop = await corpusShop(t)
  const { id } = await shop.start()
  intent(shop, id, { status: 'requires_capture', amount_capturable: 2000, capture_method: 'manual', latest_charge: 'ch_3MmlLrLkdIwHu7ix0snN0B15' })
  shop.server.state.charge = { ...sampleCharge(), amount: 2000, amount_captured: 0, captured: false, payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' }
  Object.assign(shop.server.state.session as object, { status: 'complete', payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' })
  t.equal(await shop.deliver('payment_intent.amount_capturable_updated', shop.server.state.intent as object), 204)
  t.match(await shop.read(id), { status: 'authorized', amounts: undefined })
  intent(shop, id, { status: 'canceled', cancellation_reason: 'automatic', canceled_at: 1681405304, capture_method: 'manual', latest_charge: 'ch_3MmlLrLkdIwHu7ix0snN0B15' })
  t.equal(await shop.deliver('payment_intent.canceled', shop.server.state.intent as object), 204)
  t.equal((await shop.read(id)).status, 'expired')
  t.same(shop.events, ['payment.pending', 'payment.authorized', 'payment.expired'])
})

t.test('refund.created by the dashboard (no metadata): found by its PaymentIntent, refunded in part; refund.failed moves nothing', async (t) => {
  const { shop, id } = await paid(t)
  shop.server.state.refunds = [{ ...sampleRefund(), payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', charge: 'ch_3MmlLrLkdIwHu7ix0snN0B15' }]
  t.equal(await shop.deliver('refund.created', shop.server.state.refunds[0] as object), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 2000, refunded: 1000, reversed: 0 } })
  const failed = { ...sampleRefund(), id: 're_1Nispe2eZvKYlo2Cd31jOCgZ2', amount: 500, status: 'failed', failure_reason: 'expired_or_canceled_card', payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' }
  shop.server.state.refunds.unshift(failed)
  t.equal(await shop.deliver('refund.failed', failed), 204)
  const after = await shop.read(id)
  t.match(after, { status: 'refunded', amounts: { captured: 2000, refunded: 1000, reversed: 0 } })
  t.match(after.details.refunds, [{ id: 're_1Nispe2eZvKYlo2Cd31jOCgZ', status: 'succeeded' }, { status: 'failed', failure_reason: 'expired_or_canceled_card' }])
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.refunded'])
})

t.test('charge.dispute.created then charge.dispute.closed lost: suspended, then refunded with the disputed amount reversed', async (t) => {
  const { shop, id } = await paid(t)
  const dispute = { ...sampleDispute(), payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', charge: 'ch_3MmlLrLkdIwHu7ix0snN0B15' }
  shop.server.state.disputes = [dispute]
  t.equal(await shop.deliver('charge.dispute.created', dispute), 204)
  t.match(await shop.read(id), { status: 'suspended', amounts: { captured: 2000, refunded: 0, reversed: 0 } })
  Object.assign(dispute, { status: 'lost', is_charge_refundable: false })
  t.equal(await shop.deliver('charge.dispute.closed', dispute), 204)
  t.match(await shop.read(id), { status: 'refunded', amounts: { captured: 2000, refunded: 0, reversed: 1000 } })
  t.same(shop.events, ['payment.pending', 'payment.captured', 'payment.disputed', 'payment.dispute_resolved', 'payment.reversed'])
})

t.test('checkout.session.expired before any attempt: expired; after a declined attempt (last_payment_error): failed', async (t) => {
  const shop = await corpusShop(t)
  const { id } = await shop.start()
  Object.assign(shop.server.state.session as object, { status: 'expired', url: null })
  t.equal(await shop.deliver('checkout.session.expired', shop.server.state.session as object), 204)
  t.equal((await shop.read(id)).status, 'expired')
  t.same(shop.events, ['payment.pending', 'payment.expired'])

  const other = await corpusShop(t)
  const declined = await other.start()
  intent(other, declined.id, { last_payment_error: sampleCardError() })
  Object.assign(other.server.state.session as object, { payment_intent: 'pi_3MtwBwLkdIwHu7ix28a3tqPa' })
  t.equal(await other.deliver('payment_intent.payment_failed', other.server.state.intent as object), 204)
  t.match(await other.read(declined.id), { status: 'pending', details: { last_payment_error: { code: 'card_declined', decline_code: 'generic_decline' } } }, 'the buyer may still pay')
  Object.assign(other.server.state.session as object, { status: 'expired', url: null })
  t.equal(await other.deliver('checkout.session.expired', other.server.state.session as object), 204)
  t.equal((await other.read(declined.id)).status, 'failed')
})

t.test('Stripe refuses the session for good (a documented invalid_request_error): the payment ends failed, the error kept', async (t) => {
  const shop = await corpusShop(t)
  shop.server.state.createAnswer = { status: 400, body: { error: { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'line_items[0][price_data][unit_amount]', message: 'Invalid integer: 12.5' } } }
  const back = await visit((await shop.checkout()).captureUrl)
  t.equal(back.status, 302)
  t.equal((await readDone(back.location)).status, 'failed')
  const [payment] = await shop.app.paywire.getStorage(Payment).findBy({ gatewayName: GATEWAY })
  t.match(payment?.details, { paywire_state: 'failed', error: { type: 'invalid_request_error', code: 'parameter_invalid_integer', request_id: /^req_corpus/, refused: true } })
})
