import t from 'tap'
import { bearer, CLIENT, paidPayment, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)

t.test('webhook subscriptions over the REST API', async (t) => {
  const other = { clientId: 'other', clientSecret: 'other-secret' }
  const app = simulator(t, { clients: [CLIENT, other] })
  const auth = await bearer(app)
  const payload = { url: 'https://shop.test/paypal/webhook', event_types: [{ name: 'PAYMENT.SALE.COMPLETED' }, { name: 'PAYMENT.SALE.REFUNDED' }] }
  const created = await app.inject({ method: 'POST', url: '/v1/notifications/webhooks', headers: auth, payload })
  t.equal(created.statusCode, 201)
  const webhook = created.json()
  t.match(webhook, { id: /^[A-Z0-9]{17}$/, url: payload.url, event_types: payload.event_types })
  t.same(webhook.links.map((link: { rel: string, method: string }) => `${link.rel} ${link.method}`), ['self GET', 'update PATCH', 'delete DELETE'])
  t.equal(app.simulator.counters().webhooksCreated, 1)
  t.same(app.simulator.webhooks.subscriptions().map((subscription) => subscription.eventTypes), [['PAYMENT.SALE.COMPLETED', 'PAYMENT.SALE.REFUNDED']])

  const duplicate = await app.inject({ method: 'POST', url: '/v1/notifications/webhooks', headers: auth, payload })
  t.equal(duplicate.statusCode, 400)
  t.match(duplicate.json(), { name: 'WEBHOOK_URL_ALREADY_EXISTS' })

  const otherAuth = await bearer(app, other)
  const list = await app.inject({ url: '/v1/notifications/webhooks', headers: auth })
  t.same(list.json().webhooks.map((item: { id: string }) => item.id), [webhook.id])
  t.same((await app.inject({ url: '/v1/notifications/webhooks', headers: otherAuth })).json(), { webhooks: [] })
  t.equal((await app.inject({ url: `/v1/notifications/webhooks/${webhook.id}`, headers: auth })).json().id, webhook.id)
  t.equal((await app.inject({ url: `/v1/notifications/webhooks/${webhook.id}`, headers: otherAuth })).statusCode, 404)

  const deleted = await app.inject({ method: 'DELETE', url: `/v1/notifications/webhooks/${webhook.id}`, headers: auth })
  t.equal(deleted.statusCode, 204)
  t.equal((await app.inject({ url: `/v1/notifications/webhooks/${webhook.id}`, headers: auth })).json().name, 'INVALID_RESOURCE_ID')
})

t.test('webhook subscription validation', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const cases: Array<[Record<string, unknown>, Array<{ field: string, issue: string }>]> = [
    [{}, [{ field: 'url', issue: 'Required field missing' }, { field: 'event_types', issue: 'Required field missing' }]],
    [{ url: 'not a url', event_types: [] }, [{ field: 'url', issue: 'Value is invalid.' }, { field: 'event_types', issue: 'Value is invalid.' }]],
    [{ url: 'https://x.test', event_types: [{ name: '' }, 'x'] }, [{ field: 'event_types', issue: 'Value is invalid.' }]],
    [{ url: 'https://x.test', event_types: 'all' }, [{ field: 'event_types', issue: 'Value is invalid.' }]]
  ]
  for (const [payload, details] of cases) {
    const response = await app.inject({ method: 'POST', url: '/v1/notifications/webhooks', headers: auth, payload })
    t.equal(response.statusCode, 400)
    t.match(response.json(), { name: 'VALIDATION_ERROR', details })
    t.equal(response.json().details.length, details.length)
  }
})

t.test('events can be read and resent', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const first = app.simulator.webhooks.subscribe({ url: 'http://127.0.0.1:9/a', eventTypes: ['PAYMENT.SALE.COMPLETED'] })
  app.simulator.webhooks.subscribe({ url: 'http://127.0.0.1:9/b', eventTypes: ['PAYMENT.SALE.COMPLETED'] })
  app.simulator.webhooks.pause()
  await paidPayment(app, auth)
  const event = app.simulator.webhooks.events().find((candidate) => candidate.event_type === 'PAYMENT.SALE.COMPLETED')
  const shown = await app.inject({ url: `/v1/notifications/webhooks-events/${event?.id ?? ''}`, headers: auth })
  t.same(shown.json(), event)
  t.equal((await app.inject({ url: '/v1/notifications/webhooks-events/WH-NOPE', headers: auth })).statusCode, 404)

  const resent = await app.inject({ method: 'POST', url: `/v1/notifications/webhooks-events/${event?.id ?? ''}/resend`, headers: auth, payload: {} })
  t.equal(resent.statusCode, 202)
  t.equal(resent.json().id, event?.id)
  await app.inject({ method: 'POST', url: `/v1/notifications/webhooks-events/${event?.id ?? ''}/resend`, headers: auth, payload: { webhook_ids: [first.id] } })
  await app.simulator.webhooks.waitForIdle()
  t.equal(app.simulator.webhooks.deliveries({ eventId: event?.id }).length, 5, 'original 2 + all 2 + first 1')
  t.equal(app.simulator.webhooks.deliveries({ eventId: event?.id, webhookId: first.id }).length, 3)
})

t.test('verify-webhook-signature validation', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const missing = await app.inject({ method: 'POST', url: '/v1/notifications/verify-webhook-signature', headers: auth, payload: { transmission_id: '' } })
  t.equal(missing.statusCode, 400)
  t.same(missing.json().details.map((detail: { field: string }) => detail.field),
    ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id', 'webhook_event'])
  const invalid = await app.inject({
    method: 'POST',
    url: '/v1/notifications/verify-webhook-signature',
    headers: auth,
    payload: {
      auth_algo: 'SHA256-with-RSA',
      cert_url: 'x'.repeat(501),
      transmission_id: 5,
      transmission_sig: 'a b',
      transmission_time: 'now',
      webhook_id: 'not-alnum',
      webhook_event: []
    }
  })
  t.match(invalid.json(), {
    name: 'VALIDATION_ERROR',
    details: [
      { field: 'auth_algo', issue: 'Value is invalid.' }, { field: 'cert_url' }, { field: 'transmission_id' },
      { field: 'transmission_sig' }, { field: 'webhook_id' }, { field: 'webhook_event', issue: 'Value is invalid.' }
    ]
  })
  const unauthenticated = await app.inject({ method: 'POST', url: '/v1/notifications/verify-webhook-signature', payload: {} })
  t.equal(unauthenticated.statusCode, 401)
})

t.test('the certificate is public; unknown ones are 404', async (t) => {
  const app = shared
  const url = new URL(app.simulator.webhooks.certificateUrl())
  const certificate = await app.inject({ url: url.pathname })
  t.equal(certificate.statusCode, 200)
  t.match(certificate.headers['content-type'], /application\/x-pem-file/)
  t.match(certificate.body, /^-----BEGIN CERTIFICATE-----/)
  const unknown = await app.inject({ url: '/v1/notifications/certs/CERT-00000000-00000000-00000000' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().name, 'INVALID_RESOURCE_ID')
})
