import Stripe from 'stripe'
import t from 'tap'
import { Payment, type UnmatchedMoneyEvent } from '../../../../plugins/core/index.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { GATEWAY, comeBack, pay, startJourney, startStripeShop, statusOf, submit, visit, type StripeShop } from '../fixtures/shop.ts'

function notifyUrl (shop: StripeShop): string {
  return `${shop.origin}/payment/notify/unsafe/${GATEWAY}`
}

/** How often Paywire read the PaymentIntent from Stripe. */
function intentReads (shop: StripeShop): number {
  return shop.stripe.simulator.calls()['GET /v1/payment_intents/:id'] ?? 0
}

t.test('every delivery of a payment\'s life passes the official SDK\'s check and is answered 2xx; the gateway used the same check', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 1500 })
  t.equal(paid.status, 'captured')
  const deliveries = shop.stripe.simulator.webhooks.deliveries()
  t.ok(deliveries.length >= 4, `${deliveries.length} deliveries`)
  for (const delivery of deliveries) {
    const event = Stripe.webhooks.constructEvent(delivery.body as string, delivery.signature as string, shop.endpoint?.secret as string)
    t.equal(event.id, delivery.eventId, `${delivery.eventType} verifies`)
    t.ok(delivery.attempts.every((attempt) => attempt.statusCode === 204), `${delivery.eventType} answered 204`)
  }
})

t.test('duplicated deliveries: the second costs no claim and no call to Stripe', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  shop.stripe.simulator.webhooks.duplicateNext(20)
  const paid = await submit(journey.sessionUrl)
  await shop.stripe.simulator.webhooks.waitForIdle()
  const duplicates = shop.stripe.simulator.webhooks.deliveries().filter((delivery) => delivery.extra)
  t.ok(duplicates.length > 0, `${duplicates.length} duplicates`)
  t.ok(duplicates.every((delivery) => delivery.attempts.at(-1)?.statusCode === 204))
  const { details } = await statusOf(shop, journey.id)
  const handled = shop.stripe.simulator.webhooks.deliveries().filter((delivery) => !delivery.extra && details.paywire_webhook_events.includes(delivery.eventId))
  t.ok(handled.length > 0)
  const reads = intentReads(shop)
  for (const delivery of handled) shop.stripe.simulator.webhooks.redeliver(delivery.eventId)
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.equal(intentReads(shop), reads, 'a redelivered event is dropped before any call')
  t.equal((await comeBack(paid.location)).status, 'captured')
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('deliveries held and sent in reverse order, some dropped and retried by Stripe later: the state comes from Stripe, forward only', async (t) => {
  const shop = await startStripeShop(t)
  const journey = await startJourney(shop)
  shop.stripe.simulator.webhooks.pause()
  await submit(journey.sessionUrl, 'pm_card_chargeDeclined')
  await submit(journey.sessionUrl, 'pm_card_visa')
  shop.stripe.simulator.webhooks.dropNext(2)
  shop.stripe.simulator.webhooks.resume({ reverse: true })
  await shop.stripe.simulator.webhooks.waitForIdle()
  const status = await statusOf(shop, journey.id)
  t.equal(status.status, 'captured', 'the latest event was handled first: Stripe says captured')
  t.equal(status.details.last_payment_error, null)
  // Stripe retries the dropped ones after 5 minutes; they change nothing.
  shop.stripe.simulator.clock.advance(5 * 60 * 1000 + 1000)
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.ok(shop.stripe.simulator.webhooks.deliveries().every((delivery) => delivery.status === 'delivered'))
  await assertAgree(t, shop, journey.id, 'captured')
})

t.test('deliveries that do not verify are refused with a 400 and touch nothing', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop)
  const [delivery] = shop.stripe.simulator.webhooks.deliveries()
  const body = delivery?.body as string
  const post = (headers: Record<string, string>, payload = body) => visit(notifyUrl(shop), { body: payload, headers: { 'content-type': 'application/json', ...headers } })
  const before = await statusOf(shop, paid.id)
  t.match(await post({}), { status: 400, body: /no Stripe-Signature/ })
  t.match(await post({ 'stripe-signature': 't=1,v1=00' }), { status: 400, body: 'Webhook signature verification failed.' })
  const forged = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_not_the_endpoints' })
  t.match(await post({ 'stripe-signature': forged }), { status: 400 })
  t.match(await post({ 'stripe-signature': delivery?.signature as string }, `${body} `), { status: 400 }, 'one byte more than was signed')
  const stale = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: shop.endpoint?.secret as string, timestamp: Math.floor(Date.now() / 1000) - 301 })
  t.match(await post({ 'stripe-signature': stale }), { status: 400 }, 'older than the 300 s tolerance')
  const signedGarbage = Stripe.webhooks.generateTestHeaderString({ payload: 'not json', secret: shop.endpoint?.secret as string })
  t.match(await post({ 'stripe-signature': signedGarbage, 'content-type': 'text/plain' }, 'not json'), { status: 400, body: 'Not a Stripe event.' })
  t.same((await statusOf(shop, paid.id)).details, before.details)
})

t.test('a rolled secret: deliveries signed with the old and new secrets verify with either; a gateway without secrets refuses them all', async (t) => {
  const shop = await startStripeShop(t, { gateway: { webhook_secrets: [] } })
  const endpoint = shop.endpoint as { id: string, secret: string }
  const rolled = shop.stripe.simulator.webhooks.rollSecret(endpoint.id)
  shop.app.paywire.addGateway(GATEWAY, { ...shop.gatewayOptions, webhook_secrets: [rolled] })
  const paid = await pay(shop)
  t.ok(shop.stripe.simulator.webhooks.deliveries().every((delivery) => delivery.attempts.at(-1)?.statusCode === 204))
  t.match(shop.stripe.simulator.webhooks.deliveries()[0]?.signature, /v1=.*v1=/, 'signed with both secrets')
  await assertAgree(t, shop, paid.id, 'captured')

  shop.app.paywire.addGateway(GATEWAY, { ...shop.gatewayOptions, webhook_secrets: '' })
  const refused = await visit(notifyUrl(shop), { body: '{}', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } })
  t.match(refused, { status: 400, body: /no webhook secret/ })
})

t.test('money about a PaymentIntent no payment owns: money.unmatched once per event; other integrations\' events without money are acknowledged', async (t) => {
  const shop = await startStripeShop(t)
  const unmatched: UnmatchedMoneyEvent[] = []
  shop.app.paywire.on('money.unmatched', (event) => { unmatched.push(event) })
  // Another integration on the same Stripe account.
  const foreign = await shop.sdk.paymentIntents.create({ amount: 700, currency: 'usd', payment_method: 'pm_card_visa', confirm: true })
  await shop.stripe.simulator.webhooks.waitForIdle()
  await shop.app.paywire.events.drain()
  const moneyEvents = shop.stripe.simulator.events().filter((event) => ['charge.succeeded', 'payment_intent.succeeded'].includes(event.type))
  t.same(unmatched.map((event) => event.eventId).sort(), moneyEvents.map((event) => event.id).sort())
  t.match(unmatched.find((event) => event.eventType === 'payment_intent.succeeded'), {
    gateway: GATEWAY, provider: 'Stripe', resourceIds: { payment_intent: foreign.id }, amount: { value: '700', currency: 'usd' }
  })
  t.ok(shop.stripe.simulator.webhooks.deliveries().every((delivery) => delivery.attempts.at(-1)?.statusCode === 204), 'all acknowledged')
  for (const event of moneyEvents) shop.stripe.simulator.webhooks.redeliver(event.id)
  await shop.stripe.simulator.webhooks.waitForIdle()
  await shop.app.paywire.events.drain()
  t.equal(unmatched.length, 2, 'redeliveries are not reported again')
})

t.test('an event naming a payment of another gateway is not taken by it', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop)
  const payment = await shop.app.paywire.getStorage(Payment).find(paid.id)
  const unmatched: UnmatchedMoneyEvent[] = []
  shop.app.paywire.on('money.unmatched', (event) => { unmatched.push(event) })
  // The same payment id under another gateway's name (a second shop on the account, say).
  await shop.app.paywire.getStorage(Payment).update(Object.assign(payment as Payment, { gatewayName: 'elsewhere' }))
  const reads = intentReads(shop)
  const event = shop.stripe.simulator.events().find((entry) => entry.type === 'checkout.session.completed')
  shop.stripe.simulator.webhooks.redeliver(event?.id as string)
  await shop.stripe.simulator.webhooks.waitForIdle()
  await shop.app.paywire.events.drain()
  t.equal(intentReads(shop), reads, 'its Notify never ran')
  t.equal(unmatched.length, 1)
})
