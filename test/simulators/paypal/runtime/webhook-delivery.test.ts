import { createVerify } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import t from 'tap'
import { crc32 } from '../../../../simulators/paypal/index.ts'
import { bearer, CLIENT, createPayment, execute, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { startReceiver } from '../fixtures/receiver.ts'
import type { ReceivedWebhook } from '../fixtures/receiver.ts'

const header = (webhook: ReceivedWebhook, name: string): string => String(webhook.headers[name])

t.test('a paid and refunded payment is announced with signed PayPal events', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t, { webhooks: [{ url: receiver.url }] })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const [subscription] = app.simulator.webhooks.subscriptions()
  const webhookId = subscription?.id ?? ''
  // As a real client would: requests carry the simulator's own host, so links point back to it.
  const auth = { ...await bearer(app), host: new URL(app.listeningOrigin).host }
  const { paymentId, saleId } = await paidPayment(app, auth)
  await app.inject({ method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: {} })
  await app.simulator.webhooks.waitForIdle()

  t.same(receiver.received.map((webhook) => webhook.event.event_type), ['PAYMENTS.PAYMENT.CREATED', 'PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.REFUNDED'])
  const [created, completed, refunded] = receiver.received as [ReceivedWebhook, ReceivedWebhook, ReceivedWebhook]
  t.match(created.event, { resource_type: 'payment', resource: { id: paymentId, state: 'created' } })
  t.match(completed.event, {
    id: /^WH-[A-Z0-9]{17}-[A-Z0-9]{17}$/,
    event_version: '1.0',
    create_time: /Z$/,
    resource_type: 'sale',
    summary: 'Payment completed for 7.00 USD',
    resource: { id: saleId, state: 'completed', parent_payment: paymentId, amount: { total: '7.00', currency: 'USD' } },
    links: [{ rel: 'self', method: 'GET' }, { rel: 'resend', method: 'POST' }]
  })
  t.match(refunded.event, { resource_type: 'refund', summary: 'A 7.00 USD sale payment was refunded', resource: { sale_id: saleId, state: 'completed' } })

  // Verify exactly as a merchant does offline (paypal-wire §4.5), downloading the certificate.
  for (const webhook of receiver.received) {
    t.match(webhook.headers, {
      'paypal-transmission-id': /^[0-9a-f-]{36}$/,
      'paypal-transmission-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': app.simulator.webhooks.certificateUrl(),
      'content-type': 'application/json',
      'user-agent': /^PayPal\//
    })
    const certificate = await (await fetch(header(webhook, 'paypal-cert-url'))).text()
    const message = `${header(webhook, 'paypal-transmission-id')}|${header(webhook, 'paypal-transmission-time')}|${webhookId}|${crc32(webhook.body)}`
    const valid = createVerify('sha256').update(message).verify(certificate, Buffer.from(header(webhook, 'paypal-transmission-sig'), 'base64'))
    t.ok(valid, `${webhook.event.event_type} signature verifies offline`)
  }
  t.equal(await app.simulator.webhooks.certificatePem(), await (await fetch(app.simulator.webhooks.certificateUrl())).text())

  const deliveries = app.simulator.webhooks.deliveries({ webhookId })
  t.equal(deliveries.length, 3)
  t.same(deliveries.map((delivery) => [delivery.status, delivery.attempts]), Array(3).fill(['delivered', [{ statusCode: 200 }]]))
  t.equal(deliveries[1]?.body, completed.body, 'the record keeps the exact bytes')
  t.equal(app.simulator.webhooks.events().length, 3)
})

t.test('verify-webhook-signature: SUCCESS for what was sent, FAILURE otherwise', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const auth = await bearer(app)
  const subscription = app.simulator.webhooks.subscribe({ url: receiver.url, eventTypes: ['PAYMENT.SALE.COMPLETED'] })
  await paidPayment(app, auth)
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 1, 'only the subscribed event type')
  const [webhook] = receiver.received as [ReceivedWebhook]

  const verify = async (webhookEvent: string, webhookId = subscription.id): Promise<string> => {
    // Splice the received body verbatim, as PayPal's PHP SDK does.
    const body = `{"auth_algo":"${header(webhook, 'paypal-auth-algo')}","cert_url":"${header(webhook, 'paypal-cert-url')}",` +
      `"transmission_id":"${header(webhook, 'paypal-transmission-id')}","transmission_sig":"${header(webhook, 'paypal-transmission-sig')}",` +
      `"transmission_time":"${header(webhook, 'paypal-transmission-time')}","webhook_id":"${webhookId}","webhook_event":${webhookEvent}}`
    const response = await app.inject({ method: 'POST', url: '/v1/notifications/verify-webhook-signature', headers: { ...auth, 'content-type': 'application/json' }, payload: body })
    t.equal(response.statusCode, 200)
    return response.json().verification_status
  }
  t.equal(await verify(webhook.body), 'SUCCESS')
  t.equal(await verify(JSON.stringify(JSON.parse(webhook.body), null, 2)), 'SUCCESS', 're-serialised with whitespace')
  t.equal(await verify(webhook.body.replace('"7.00"', '"700.00"')), 'FAILURE', 'tampered body')
  t.equal(await verify(webhook.body, 'WRONGWEBHOOKID1'), 'FAILURE', 'wrong webhook id')
})

t.test('non-2xx answers are retried a bounded number of times', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t, { webhooks: [{ url: receiver.url, eventTypes: ['PAYMENT.SALE.COMPLETED'] }], webhookDelivery: { retryDelayMs: 0 } })
  receiver.statuses.push(500, 503)
  const auth = await bearer(app)
  await paidPayment(app, auth)
  await app.simulator.webhooks.waitForIdle()
  const [delivery] = app.simulator.webhooks.deliveries()
  t.equal(delivery?.status, 'delivered')
  t.same(delivery?.attempts, [{ statusCode: 500 }, { statusCode: 503 }, { statusCode: 200 }])
  t.equal(receiver.received.length, 3)
  t.equal(new Set(receiver.received.map((webhook) => webhook.event.id)).size, 1, 'the same event each time')

  receiver.statuses.push(500, 500, 500)
  await paidPayment(app, auth)
  await app.simulator.webhooks.waitForIdle()
  const failed = app.simulator.webhooks.deliveries()[1]
  t.equal(failed?.status, 'failed')
  t.equal(failed?.attempts.length, 3, 'maxAttempts defaults to 3')
})

t.test('unreachable endpoints are recorded as errors', async (t) => {
  const app = simulator(t, { webhooks: [{ url: 'http://127.0.0.1:9/nothing-listens-here' }], webhookDelivery: { maxAttempts: 2, retryDelayMs: 1, timeoutMs: 2000 } })
  await paidPayment(app, await bearer(app))
  await app.simulator.webhooks.waitForIdle()
  for (const delivery of app.simulator.webhooks.deliveries()) {
    t.equal(delivery.status, 'failed')
    t.equal(delivery.attempts.length, 2)
    t.match(delivery.attempts[0], { error: /fetch failed/ })
  }
})

t.test('closing the simulator stops retries', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t, { webhooks: [{ url: receiver.url, eventTypes: ['PAYMENT.SALE.COMPLETED'] }], webhookDelivery: { maxAttempts: 5, retryDelayMs: 60_000 } })
  receiver.statuses.push(500)
  await paidPayment(app, await bearer(app))
  while (app.simulator.webhooks.deliveries()[0]?.attempts.length !== 1) await nextTurn()
  await app.close()
  await app.simulator.webhooks.waitForIdle()
  t.equal(app.simulator.webhooks.deliveries()[0]?.status, 'failed')
  t.equal(receiver.received.length, 1)
})

t.test('duplicates and out-of-order deliveries for idempotent handlers', async (t) => {
  const receiver = await startReceiver(t)
  const app = simulator(t)
  const first = app.simulator.webhooks.subscribe({ url: receiver.url, eventTypes: ['PAYMENT.SALE.PENDING', 'PAYMENT.SALE.COMPLETED'] })
  const second = app.simulator.webhooks.subscribe({ url: `${receiver.url}?second`, eventTypes: ['*'] })
  const auth = await bearer(app)

  app.simulator.webhooks.pause()
  const { saleId } = await paidPayment(app, auth, paymentRequest(), 'pending')
  app.simulator.settleSale(saleId, 'completed')
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 0, 'held while paused')
  t.ok(app.simulator.webhooks.deliveries().every((delivery) => delivery.status === 'held'))
  app.simulator.webhooks.resume({ reverse: true })
  await app.simulator.webhooks.waitForIdle()
  const order = receiver.received.filter((webhook) => webhook.event.event_type.startsWith('PAYMENT.SALE')).map((webhook) => webhook.event.event_type)
  t.same(order, ['PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.PENDING', 'PAYMENT.SALE.PENDING'], 'completed arrives before pending')

  const pendingEvent = app.simulator.webhooks.events().find((event) => event.event_type === 'PAYMENT.SALE.PENDING')
  const before = receiver.received.length
  const duplicates = await app.simulator.webhooks.redeliver(pendingEvent?.id ?? '')
  t.equal(duplicates.length, 2, 'to every subscribed webhook')
  t.ok(duplicates.every((delivery) => delivery.status === 'delivered'))
  const onlyFirst = await app.simulator.webhooks.redeliver(pendingEvent?.id ?? '', { webhookId: first.id })
  t.same(onlyFirst.map((delivery) => delivery.webhookId), [first.id])
  t.equal(receiver.received.length, before + 3)
  const copies = app.simulator.webhooks.deliveries({ eventId: pendingEvent?.id, webhookId: first.id })
  t.equal(copies.length, 3)
  t.equal(new Set(copies.map((delivery) => delivery.headers['paypal-transmission-id'])).size, 3, 'each transmission is new')
  t.ok(app.simulator.webhooks.deliveries({ webhookId: second.id }).length > 0)
  await t.rejects(app.simulator.webhooks.redeliver('WH-NOPE'), /no webhook event WH-NOPE/)
})

t.test('denied sales and other merchants', async (t) => {
  const receiver = await startReceiver(t)
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other], webhooks: [{ url: receiver.url, clientId: 'other' }] })
  const { saleId } = await paidPayment(app, await bearer(app), paymentRequest(), 'pending')
  app.simulator.settleSale(saleId, 'denied')
  await app.simulator.webhooks.waitForIdle()
  t.equal(receiver.received.length, 0, "another merchant's webhook hears nothing")
  t.same(app.simulator.webhooks.events().map((event) => event.event_type), ['PAYMENTS.PAYMENT.CREATED', 'PAYMENT.SALE.PENDING', 'PAYMENT.SALE.DENIED'])
  t.match(app.simulator.webhooks.events()[2], { summary: 'Payment denied for 7.00 USD', resource: { state: 'denied' } })

  const otherAuth = await bearer(app, other)
  const payment = await createPayment(app, otherAuth)
  await execute(app, otherAuth, payment.id, app.simulator.approve(payment.id).payerId)
  await app.simulator.webhooks.waitForIdle()
  t.same(receiver.received.map((webhook) => webhook.event.event_type), ['PAYMENTS.PAYMENT.CREATED', 'PAYMENT.SALE.COMPLETED'])
  t.throws(() => app.simulator.webhooks.subscribe({ url: receiver.url, clientId: 'ghost' }), /unknown client ghost/)
})

t.test('sign() signs arbitrary bodies the way deliveries are signed', async (t) => {
  const app = simulator(t, { publicUrl: 'https://paypal.test' })
  const auth = await bearer(app)
  const body = '{"id":"WH-HANDMADE","event_type":"PAYMENT.SALE.COMPLETED","resource":{}}'
  const headers = await app.simulator.webhooks.sign(body, { webhookId: 'HANDMADE1' })
  t.equal(headers['paypal-cert-url'], app.simulator.webhooks.certificateUrl())
  t.match(headers['paypal-cert-url'], /^https:\/\/paypal\.test\/v1\/notifications\/certs\/CERT-/)
  const response = await app.inject({
    method: 'POST',
    url: '/v1/notifications/verify-webhook-signature',
    headers: auth,
    payload: {
      auth_algo: headers['paypal-auth-algo'],
      cert_url: headers['paypal-cert-url'],
      transmission_id: headers['paypal-transmission-id'],
      transmission_sig: headers['paypal-transmission-sig'],
      transmission_time: headers['paypal-transmission-time'],
      webhook_id: 'HANDMADE1',
      webhook_event: JSON.parse(body)
    }
  })
  t.same(response.json(), { verification_status: 'SUCCESS' })
})
