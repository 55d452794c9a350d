import t from 'tap'
import { PaypalRestApi } from '../../../gateways/paypal-rest/index.ts'
import { PaypalRestConfig, PaypalWebhookVerifier } from '../../../gateways/paypal-shared/index.ts'
import type { WebhookSignatureHeaders } from '../../../simulators/paypal/index.ts'
import type { HttpRequestData } from '../../../plugins/core/index.ts'
import { CapturingLogger, ScriptedHttpClient, type Teardown } from '../paypal-rest/fixtures/recorders.ts'
import { startPaypal, type PaypalFixture } from '../paypal-rest/fixtures/shop.ts'

const EVENT = '{"id":"WH-7","event_type":"PAYMENT.SALE.COMPLETED","resource":{"parent_payment":"PAYID-1"}}'

interface Setup extends PaypalFixture {
  verifier: PaypalWebhookVerifier
  http: ScriptedHttpClient
  webhookId: string
  signed: (body?: string, transmissionTime?: string) => Promise<WebhookSignatureHeaders>
  calls: (pattern: RegExp) => number
}

async function setup (t: Teardown, mode: 'online' | 'offline', options: { webhookId?: string, endpoint?: string, maxAge?: number, now?: () => number, trustAnchors?: string } = {}): Promise<Setup> {
  const fixture = await startPaypal(t)
  const subscription = fixture.paypal.simulator.webhooks.subscribe({ url: 'http://127.0.0.1:9/hooks', clientId: fixture.client.clientId })
  const webhookId = options.webhookId ?? subscription.id
  const http = new ScriptedHttpClient()
  t.teardown(() => http.close())
  const config = new PaypalRestConfig({
    gatewayName: 'paypal',
    clientId: fixture.client.clientId,
    clientSecret: fixture.client.clientSecret,
    configPath: '',
    config: { 'service.EndPoint': options.endpoint ?? fixture.endpoint, 'http.RetryBackoffMs': 1, 'http.Retry': 0 },
    webhookId,
    webhookVerification: mode,
    webhookMaxAge: options.maxAge,
    // The simulator's CA stands in for PayPal's (DigiCert); '' leaves Node's bundled roots.
    webhookTrustAnchors: options.trustAnchors ?? await fixture.paypal.simulator.webhooks.certificateAuthorityPem()
  })
  const verifier = new PaypalWebhookVerifier(config, new PaypalRestApi(config, http, new CapturingLogger()), http, { now: options.now })
  return {
    ...fixture,
    verifier,
    http,
    webhookId,
    signed: async (body = EVENT, transmissionTime?: string) => await fixture.paypal.simulator.webhooks.sign(body, { webhookId: subscription.id, transmissionTime }),
    calls: (pattern) => http.requests.filter((request) => pattern.test(request.url)).length
  }
}

function delivery (content: string, headers: Record<string, string>): HttpRequestData {
  return { method: 'POST', uri: '/payment/notify/unsafe/paypal', query: {}, request: {}, content, headers, clientIp: '127.0.0.1', userAgent: 'PayPal/AUHD-214.0-58843016' }
}

t.test('online: PayPal\'s verify endpoint decides, with the event spliced in exactly as received', async (t) => {
  const { verifier, signed, calls } = await setup(t, 'online')
  const headers = { ...await signed() }
  t.equal(await verifier.verify(delivery(EVENT, headers)), true)
  const spaced = EVENT.replace('{"id"', '{ "id"')
  t.equal(await verifier.verify(delivery(spaced, { ...await signed(spaced) })), true, 'bytes as received, not re-serialized')
  t.equal(await verifier.verify(delivery(EVENT.replace('PAYID-1', 'PAYID-2'), headers)), false, 'a tampered body')
  t.equal(calls(/verify-webhook-signature$/), 2, 'the tampered copy of a verified transmission is refused from memory')
  const fresh = { ...await signed() }
  t.equal(await verifier.verify(delivery(EVENT.replace('PAYID-1', 'PAYID-2'), fresh)), false, 'a tampered body under a new transmission')
  t.equal(calls(/verify-webhook-signature$/), 3)
})

t.test('online: a delivery signed for another subscription is refused', async (t) => {
  const { verifier, signed } = await setup(t, 'online', { webhookId: 'OTHERWEBHOOK1' })
  t.equal(await verifier.verify(delivery(EVENT, { ...await signed() })), false)
})

t.test('a delivery without every PayPal header, or whose body is no JSON object, is refused without asking PayPal', async (t) => {
  const { verifier, signed, calls } = await setup(t, 'online')
  const headers: Record<string, string> = { ...await signed() }
  for (const header of Object.keys(headers)) {
    t.equal(await verifier.verify(delivery(EVENT, { ...headers, [header]: '' })), false, `empty ${header}`)
    const { [header]: _left, ...others } = headers
    t.equal(await verifier.verify(delivery(EVENT, others)), false, `without ${header}`)
  }
  for (const content of ['', 'not json', '[1,2]', 'null']) t.equal(await verifier.verify(delivery(content, headers)), false, JSON.stringify(content))
  t.equal(calls(/verify-webhook-signature$/), 0)
})

t.test('without webhook_id nothing can be verified: a coded error naming the option', async (t) => {
  const { verifier, signed } = await setup(t, 'online', { webhookId: '' })
  await t.rejects(verifier.verify(delivery(EVENT, { ...await signed() })), { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: /"webhook_id"/ })
})

t.test('offline: CRC32 + SHA256withRSA against the certificate, downloaded once, PayPal never asked', async (t) => {
  const { verifier, signed, calls } = await setup(t, 'offline')
  const first = { ...await signed() }
  t.equal(await verifier.verify(delivery(EVENT, first)), true)
  t.equal(await verifier.verify(delivery(EVENT, { ...await signed() })), true)
  t.equal(calls(/\/v1\/notifications\/certs\//), 1, 'the certificate is cached')
  t.equal(calls(/verify-webhook-signature$/), 0)

  t.equal(await verifier.verify(delivery(`${EVENT} `, first)), false, 'one more byte')
  t.equal(await verifier.verify(delivery(EVENT, { ...first, 'paypal-auth-algo': 'SHA1withRSA' })), false, 'another algorithm')
  t.equal(await verifier.verify(delivery(EVENT, { ...first, 'paypal-transmission-sig': Buffer.from('forged').toString('base64') })), false, 'another signature')
  t.equal(await verifier.verify(delivery(EVENT, { ...first, 'paypal-transmission-time': '2030-01-01T00:00:00Z' })), false, 'another time')
})

t.test('offline: certificates come from PayPal\'s hosts or the configured endpoint only', async (t) => {
  const { verifier, signed, http, paypal } = await setup(t, 'offline')
  const headers = { ...await signed() }
  const pem = await paypal.simulator.webhooks.certificatePem()
  http.script = (request) => request.url.startsWith('https://api.sandbox.paypal.com/') ? { statusCode: 200, headers: {}, body: pem } : undefined
  const refused = [
    'https://evil.example/v1/notifications/certs/CERT-1', 'https://paypal.com.evil.example/cert', 'https://evilpaypal.com/cert',
    'http://api.paypal.com/cert', 'https://user@evil.example/?https://api.paypal.com/', 'nonsense'
  ]
  for (const certUrl of refused) t.equal(await verifier.verify(delivery(EVENT, { ...headers, 'paypal-cert-url': certUrl })), false, certUrl)
  t.same(http.requests, [], 'nothing was downloaded')
  t.equal(await verifier.verify(delivery(EVENT, { ...headers, 'paypal-cert-url': 'https://api.sandbox.paypal.com/v1/notifications/certs/CERT-360caa42' })), true, 'PayPal\'s own host')
})

t.test('offline: no certificate at a trusted URL means not genuine; PayPal failing to serve it is a coded, retryable error', async (t) => {
  const { verifier, signed, http, paypal } = await setup(t, 'offline')
  const headers = { ...await signed() }
  const unknownCert = headers['paypal-cert-url'].replace(/CERT-[^/]+$/, 'CERT-00000000-00000000-00000000')
  t.equal(await verifier.verify(delivery(EVENT, { ...headers, 'paypal-cert-url': unknownCert })), false, '404')
  http.script = (request) => request.url === headers['paypal-cert-url'] ? { statusCode: 200, headers: {}, body: 'no certificate' } : undefined
  t.equal(await verifier.verify(delivery(EVENT, headers)), false, 'not a certificate')

  http.script = () => undefined
  paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: /\/v1\/notifications\/certs\// })
  await t.rejects(verifier.verify(delivery(EVENT, headers)), { code: 'PAYWIRE_ERR_PROVIDER', statusCode: 502, providerCode: 'HTTP_503' })
  t.equal(await verifier.verify(delivery(EVENT, headers)), true, 'the next delivery downloads it again')
})

t.test('offline: PayPal unreachable for the certificate is a coded error', async (t) => {
  const { verifier, signed } = await setup(t, 'offline', { endpoint: 'http://127.0.0.1:9' })
  const headers = { ...await signed() }
  const certUrl = headers['paypal-cert-url'].replace(/^http:\/\/127\.0\.0\.1:\d+/, 'http://127.0.0.1:9')
  await t.rejects(verifier.verify(delivery(EVENT, { ...headers, 'paypal-cert-url': certUrl })), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'NO_RESPONSE' })
})

t.test('out-of-spec headers are refused before any call: never a 400 from PayPal turned into a 502', async (t) => {
  const { verifier, signed, calls } = await setup(t, 'online')
  const headers: Record<string, string> = { ...await signed() }
  const outOfSpec: Array<[string, string]> = [
    ['paypal-transmission-id', 'x'.repeat(51)],
    ['paypal-transmission-id', 'has spaces'],
    ['paypal-transmission-time', 'yesterday'],
    ['paypal-transmission-time', '2026-13-45T99:99:99Z'],
    ['paypal-transmission-sig', 'not base64!'],
    ['paypal-transmission-sig', 'A'.repeat(501)],
    ['paypal-cert-url', `https://api.paypal.com/${'c'.repeat(500)}`],
    ['paypal-cert-url', 'https://evil.example/v1/notifications/certs/CERT-1'],
    ['paypal-auth-algo', 'SHA256 with RSA'],
    ['paypal-auth-algo', 'A'.repeat(101)]
  ]
  for (const [header, value] of outOfSpec) {
    t.equal(await verifier.verify(delivery(EVENT, { ...headers, [header]: value })), false, `${header}: ${value.slice(0, 40)}`)
  }
  t.equal(calls(/verify-webhook-signature$/), 0, 'PayPal was never asked')
})

t.test('stale or future transmissions are refused without asking PayPal; the window is an option', async (t) => {
  for (const mode of ['online', 'offline'] as const) {
    let now = Date.now()
    const { verifier, signed, calls } = await setup(t, mode, { maxAge: 60, now: () => now })
    const headers = { ...await signed() }
    // The clock starts at the transmission's own time: setup may take seconds on a busy machine.
    now = Date.parse(headers['paypal-transmission-time'])
    now += 61_000
    t.equal(await verifier.verify(delivery(EVENT, headers)), false, `${mode}: a minute and a second late`)
    now -= 122_000
    t.equal(await verifier.verify(delivery(EVENT, headers)), false, `${mode}: from a minute in the future`)
    t.equal(calls(/verify-webhook-signature$|\/certs\//), 0)
    now += 61_000
    t.equal(await verifier.verify(delivery(EVENT, headers)), true, `${mode}: within the window`)
  }
})

t.test('a verified transmission is remembered for the window: a replay costs no call', async (t) => {
  let now = Date.now()
  const { verifier, signed, calls } = await setup(t, 'online', { now: () => now })
  const headers = { ...await signed() }
  now = Date.parse(headers['paypal-transmission-time'])
  t.equal(await verifier.verify(delivery(EVENT, headers)), true)
  for (let replay = 0; replay < 200; replay++) t.equal(await verifier.verify(delivery(EVENT, headers)), true)
  t.equal(calls(/verify-webhook-signature$/), 1, '200 replays, one call')
  t.equal(await verifier.verify(delivery(EVENT, { ...headers, 'paypal-transmission-sig': Buffer.from('x'.repeat(32)).toString('base64') })), false, 'another signature under a verified id')
  t.equal(calls(/verify-webhook-signature$/), 1)
  now += 301_000
  t.equal(await verifier.verify(delivery(EVENT, headers)), false, 'after the window the transmission is stale anyway')
  t.equal(calls(/verify-webhook-signature$/), 1)
})

t.test('forged deliveries on the route: refused, and none costs a call to PayPal', async (t) => {
  const { startShop, deliver } = await import('../paypal-rest/fixtures/shop.ts')
  const logger = new CapturingLogger()
  const shop = await startShop(t, { logger, config: { 'log.LogEnabled': true } })
  const forged = {
    'paypal-transmission-id': 'd938e770-8046-11e6-8103-6b62a8a99ac4',
    'paypal-transmission-time': new Date().toISOString(),
    'paypal-transmission-sig': Buffer.from('forged'.repeat(10)).toString('base64'),
    'paypal-cert-url': 'https://evil.example/cert.pem',
    'paypal-auth-algo': 'SHA256withRSA'
  }
  for (let post = 0; post < 50; post++) {
    const page = await deliver(shop, EVENT, { ...forged, 'paypal-transmission-id': `forged-${post}` })
    t.equal(page.status, 400)
  }
  const outOfSpec = await deliver(shop, EVENT, { ...forged, 'paypal-cert-url': shop.endpoint + '/v1/notifications/certs/CERT-1', 'paypal-transmission-id': 'x'.repeat(80) })
  t.equal(outOfSpec.status, 400, 'out-of-spec values are the sender\'s mistake, not a 502')
  t.same(logger.calls(), [], 'PayPal saw none of them')
  const signedDelivery = await shop.paypal.simulator.webhooks.sign(EVENT, { webhookId: shop.webhookId })
  t.equal((await deliver(shop, EVENT, { ...signedDelivery })).status, 204, 'a genuine one still passes')
  t.same(logger.calls(), ['POST /v1/oauth2/token 200', 'POST /v1/notifications/verify-webhook-signature 200'], 'with one call')
})
