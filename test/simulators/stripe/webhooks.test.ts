import t from 'tap'
import Stripe from 'stripe'
import { call, startReceiver, startSimulator } from './helpers.ts'

/*
 * Signed webhook deliveries, checked with the official SDK's stripe.webhooks.constructEvent, and
 * the delivery controls: retries on the simulated clock, drops, duplicates, reordering, delays.
 */

const sdk = new Stripe('sk_test_simulator')
const MINUTE = 60_000

t.test('every delivery verifies with its endpoint secret, and only with it', async (t) => {
  const first = await startReceiver(t)
  const second = await startReceiver(t)
  const { app, stripe, origin } = await startSimulator(t, { webhooks: [{ url: first.url, secret: 'whsec_first0123456789' }] })
  const created = await stripe.webhookEndpoints.create({ url: second.url, enabled_events: ['payment_intent.succeeded', 'charge.succeeded'] })
  t.match(created.secret, /^whsec_/)
  t.equal((await stripe.webhookEndpoints.retrieve(created.id)).secret, undefined, 'the secret is shown on create only')

  const intent = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true })
  await app.simulator.webhooks.waitForIdle()
  t.same(first.received.map((item) => JSON.parse(item.body).type), ['payment_intent.created', 'charge.succeeded', 'payment_intent.succeeded'])
  t.same(second.received.map((item) => JSON.parse(item.body).type), ['charge.succeeded', 'payment_intent.succeeded'], 'enabled_events filters')
  for (const [receiver, secret, other] of [[first, 'whsec_first0123456789', created.secret], [second, created.secret, 'whsec_first0123456789']] as const) {
    for (const delivery of receiver.received) {
      const event = sdk.webhooks.constructEvent(delivery.body, delivery.headers['stripe-signature'] as string, secret as string)
      t.equal(event.livemode, false)
      t.match(delivery.headers['user-agent'], /^Stripe\/1\.0/)
      t.match(delivery.headers['content-type'], /^application\/json/)
      t.throws(() => sdk.webhooks.constructEvent(delivery.body, delivery.headers['stripe-signature'] as string, other as string), /No signatures found matching the expected signature/)
      t.throws(() => sdk.webhooks.constructEvent(delivery.body.replace('"livemode": false', '"livemode": true'), delivery.headers['stripe-signature'] as string, secret as string), /No signatures found matching the expected signature/, 'a tampered body is refused')
    }
  }
  const succeeded = JSON.parse(first.received[2]?.body as string) as Stripe.Event
  t.match(succeeded, { object: 'event', type: 'payment_intent.succeeded', pending_webhooks: 2, data: { object: { id: intent.id, status: 'succeeded' } }, request: { id: intent.lastResponse.requestId, idempotency_key: intent.lastResponse.idempotencyKey } })
  t.equal((await stripe.events.retrieve(succeeded.id)).pending_webhooks, 0, 'every endpoint answered 2xx since')

  const rolled = app.simulator.webhooks.rollSecret(created.id)
  await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true })
  await app.simulator.webhooks.waitForIdle()
  const last = second.received.at(-1) as { body: string, headers: Record<string, string> }
  t.equal(last.headers['stripe-signature']?.match(/v1=/g)?.length, 2, 'signed with the new and the previous secret')
  t.ok(sdk.webhooks.constructEvent(last.body, last.headers['stripe-signature'] as string, rolled))
  t.ok(sdk.webhooks.constructEvent(last.body, last.headers['stripe-signature'] as string, created.secret as string))
  t.throws(() => app.simulator.webhooks.rollSecret('we_nope'), /No webhook endpoint/)

  t.same((await stripe.webhookEndpoints.list()).data.map((item) => item.id), [created.id, app.simulator.webhooks.endpoints()[0]?.id])
  t.match(await stripe.webhookEndpoints.del(created.id), { id: created.id, deleted: true })
  t.match(await stripe.webhookEndpoints.del(created.id).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404 })
  t.match(await stripe.webhookEndpoints.retrieve(created.id).catch((error: Stripe.errors.StripeError) => error), { statusCode: 404 })
  t.match(await stripe.webhookEndpoints.create({ url: 'not a url', enabled_events: ['*'] }).catch((error: Stripe.errors.StripeError) => error), { param: 'url' })
  t.match(await stripe.webhookEndpoints.create({ url: second.url, enabled_events: [] as unknown as ['*'] }).catch((error: Stripe.errors.StripeError) => error), { code: 'parameter_missing', param: 'enabled_events' })
  t.match((await call(origin, 'POST', '/v1/webhook_endpoints', { 'enabled_events[]': '*' })).body, { error: { code: 'parameter_missing', param: 'url' } })
})

t.test('retries on the simulated clock until a 2xx, or until they run out', async (t) => {
  const receiver = await startReceiver(t, [500, 0])
  // A frozen clock: only advance() moves it, so "just before the retry is due" is exact.
  const { app, stripe } = await startSimulator(t, { now: () => 1_750_000_000_000, webhookDelivery: { retryDelaysMs: [5 * MINUTE, 60 * MINUTE] } })
  const endpoint = app.simulator.webhooks.subscribe({ url: receiver.url, enabledEvents: ['payment_intent.created'] })
  await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  const [delivery] = app.simulator.webhooks.deliveries({ endpointId: endpoint.id })
  t.match(delivery, { status: 'scheduled', attempts: [{ statusCode: 500 }] })
  const eventId = delivery?.eventId as string
  t.equal((await stripe.events.retrieve(eventId)).pending_webhooks, 1)
  t.same((await stripe.events.list({ delivery_success: false })).data.map((event) => event.id), [eventId])
  app.simulator.clock.advance(5 * MINUTE - 1)
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 1, 'not before its time')
  app.simulator.clock.advance(1)
  await app.simulator.webhooks.waitForIdle()
  t.match(app.simulator.webhooks.deliveries({ eventId })[0], { status: 'scheduled', attempts: [{ statusCode: 500 }, { error: /./ }] }, 'a dropped connection is retried too')
  app.simulator.clock.advance(60 * MINUTE)
  await app.simulator.webhooks.waitForIdle()
  t.match(app.simulator.webhooks.deliveries({ eventId })[0], { status: 'delivered' })
  t.equal((await stripe.events.retrieve(eventId)).pending_webhooks, 0)
  t.same((await stripe.events.list({ delivery_success: true, type: 'payment_intent.created' })).data.map((event) => event.id), [eventId])
  t.equal(new Set(receiver.received.map((item) => JSON.parse(item.body).id)).size, 1, 'the same event each time')

  receiver.answers.push(500, 500, 500)
  await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  app.simulator.clock.advance(5 * MINUTE)
  await app.simulator.webhooks.waitForIdle()
  app.simulator.clock.advance(60 * MINUTE)
  await app.simulator.webhooks.waitForIdle()
  const failed = app.simulator.webhooks.deliveries({ endpointId: endpoint.id }).at(-1)
  t.match(failed, { status: 'failed' })
  t.equal(failed?.attempts.length, 3, 'the first attempt and two retries')
  t.equal(app.simulator.counters().webhookAttempts, 6)
})

t.test('drop, duplicate, delay and reorder deliveries', async (t) => {
  const receiver = await startReceiver(t)
  const { app, stripe } = await startSimulator(t)
  app.simulator.webhooks.subscribe({ url: receiver.url, enabledEvents: ['payment_intent.created'] })
  const received = (): string[] => receiver.received.map((item) => (JSON.parse(item.body) as { data: { object: { id: string } } }).data.object.id)

  app.simulator.webhooks.dropNext()
  const dropped = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  t.same(received(), [])
  t.equal(app.simulator.webhooks.deliveries().at(-1)?.status, 'dropped')
  t.equal(((await stripe.events.list({ delivery_success: false })).data[0]?.data.object as { id: string } | undefined)?.id, dropped.id, 'a lost delivery leaves the event undelivered')

  app.simulator.webhooks.duplicateNext()
  const twice = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  t.same(received(), [twice.id, twice.id])

  app.simulator.webhooks.delayNext(10 * MINUTE)
  const late = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  const onTime = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  t.same(received().slice(2), [onTime.id])
  app.simulator.clock.advance(10 * MINUTE)
  await app.simulator.webhooks.waitForIdle()
  t.same(received().slice(2), [onTime.id, late.id], 'the delayed one arrives after a later event')

  app.simulator.webhooks.pause()
  const a = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  const b = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 4, 'held while paused')
  app.simulator.webhooks.resume({ reverse: true })
  await app.simulator.webhooks.waitForIdle()
  t.same(received().slice(4), [b.id, a.id])
  app.simulator.webhooks.pause()
  await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  app.simulator.webhooks.resume()
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 7)

  const eventId = app.simulator.webhooks.deliveries().find((item) => item.status === 'delivered')?.eventId as string
  const again = app.simulator.webhooks.redeliver(eventId)
  t.equal(again.length, 1)
  await app.simulator.webhooks.waitForIdle()
  t.equal(JSON.parse(receiver.received.at(-1)?.body as string).id, eventId)
  t.throws(() => app.simulator.webhooks.redeliver('evt_nope'), /No event/)
  t.equal(app.simulator.webhooks.redeliver(eventId, 'we_nope').length, 0)
})

t.test('an endpoint deleted while a retry waits gets no more attempts', async (t) => {
  const receiver = await startReceiver(t, [503])
  const { app, stripe } = await startSimulator(t)
  const endpoint = app.simulator.webhooks.subscribe({ url: receiver.url })
  await stripe.paymentIntents.create({ amount: 100, currency: 'eur' })
  await app.simulator.webhooks.waitForIdle()
  await stripe.webhookEndpoints.del(endpoint.id)
  app.simulator.clock.advance(24 * 60 * MINUTE)
  await app.simulator.webhooks.waitForIdle()
  t.equal(app.simulator.webhooks.deliveries()[0]?.status, 'failed')
  t.equal(receiver.received.length, 1)
})
