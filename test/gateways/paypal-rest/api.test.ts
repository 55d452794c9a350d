import { inspect } from 'node:util'
import t from 'tap'
import { PaypalRestApi, PaypalRestConfig, isPaypalCallError } from '../../../gateways/paypal-rest/index.ts'
import { UndiciHttpClient } from '../../../plugins/core/index.ts'
import { CapturingLogger, ScriptedHttpClient, recordingProxy, type Teardown } from './fixtures/recorders.ts'
import { startPaypal, type PaypalFixture } from './fixtures/shop.ts'

const PAYMENT = {
  intent: 'sale',
  payer: { payment_method: 'paypal' },
  transactions: [{ amount: { total: '12.00', currency: 'EUR' }, description: 'Secret mug description' }],
  redirect_urls: { return_url: 'https://shop.example/return', cancel_url: 'https://shop.example/return?cancelled=1' }
}

interface Setup extends PaypalFixture {
  api: PaypalRestApi
  logger: CapturingLogger
  http: ScriptedHttpClient
  accessTokens: () => string[]
}

/** The gateway's configuration for the simulator's client, with `config` as the sdk_config options. */
function configFor (fixture: PaypalFixture, config: Record<string, unknown>, clientSecret = fixture.client.clientSecret): PaypalRestConfig {
  return new PaypalRestConfig({
    gatewayName: 'paypal',
    clientId: fixture.client.clientId,
    clientSecret,
    configPath: '',
    config,
    webhookId: '',
    webhookVerification: 'online'
  })
}

async function setup (t: Teardown, config: Record<string, unknown> = {}, clientSecret?: string): Promise<Setup> {
  const fixture = await startPaypal(t)
  const logger = new CapturingLogger()
  const http = new ScriptedHttpClient()
  t.teardown(() => http.close())
  const api = new PaypalRestApi(configFor(fixture, { 'service.EndPoint': fixture.endpoint, 'http.RetryBackoffMs': 1, ...config }, clientSecret), http, logger)
  const accessTokens = () => [...new Set(http.requests.flatMap((request) => /^Bearer (.+)$/.exec(request.headers?.authorization ?? '')?.[1] ?? []))]
  return { ...fixture, api, logger, http, accessTokens }
}

t.test('one access token serves many payments, also when they start together', async (t) => {
  const { api, paypal } = await setup(t)
  const created = await Promise.all([1, 2, 3].map((n) => api.createPayment(PAYMENT, `order-${n}-create`)))
  for (const payment of created) t.equal((await api.getPayment(payment.id)).state, 'created')
  t.equal(paypal.simulator.counters().tokenGrants, 1)
  t.equal(api.tokenRequests, 1)
})

t.test('a token PayPal no longer knows (401) is refreshed once and the call succeeds', async (t) => {
  const { api, paypal, accessTokens } = await setup(t)
  const payment = await api.createPayment(PAYMENT, 'refresh-create')
  paypal.simulator.expireAllTokens()
  t.equal((await api.getPayment(payment.id)).id, payment.id)
  t.equal(paypal.simulator.counters().tokenGrants, 2, 'exactly one refresh')
  t.equal(accessTokens().length, 2)

  paypal.simulator.expireAllTokens()
  const both = await Promise.all([api.getPayment(payment.id), api.getPayment(payment.id)])
  t.same(both.map((answer) => answer.id), [payment.id, payment.id])
  t.equal(paypal.simulator.counters().tokenGrants, 3, 'two calls refused together share one refresh')
})

t.test('a token refused again after the refresh is a coded provider error', async (t) => {
  const { api, http } = await setup(t)
  http.script = (request) => request.url.includes('/v1/payments/')
    ? { statusCode: 401, headers: { 'paypal-debug-id': 'aaaaaaaaaaaaa' }, body: '{"error":"invalid_token","error_description":"Access Token not found in cache"}' }
    : undefined
  const error = await api.getPayment('PAYID-1').catch((caught: unknown) => caught)
  t.match(error, { code: 'PAYWIRE_ERR_PROVIDER', statusCode: 502, providerCode: 'invalid_token', httpStatus: 401, debugId: 'aaaaaaaaaaaaa' })
  t.equal(http.requests.filter((request) => request.url.includes('/v1/payments/')).length, 2, 'the call and one retry with a fresh token')
})

t.test('wrong credentials: a coded provider error that never carries the secret', async (t) => {
  const wrongSecret = 'wrong-secret-8f2b0c'
  const { api, logger } = await setup(t, { 'log.LogEnabled': true, 'log.LogLevel': 'DEBUG' }, wrongSecret)
  const error = await api.createPayment(PAYMENT, 'nope-create').catch((caught: unknown) => caught)
  t.ok(isPaypalCallError(error))
  t.match(error, {
    code: 'PAYWIRE_ERR_PROVIDER',
    message: 'PayPal refused the request: Client Authentication failed (invalid_client).',
    httpStatus: 401,
    paypal: { name: 'invalid_client', message: 'Client Authentication failed', debug_id: /^[0-9a-f]{13}$/ }
  })
  t.notMatch(inspect(error, { depth: 10 }), wrongSecret)
  t.notMatch(JSON.stringify(error), wrongSecret)
  t.notMatch(logger.text(), wrongSecret)
  t.same(logger.calls(), ['POST /v1/oauth2/token 401'])
})

t.test('PayPal\'s refusals keep its name, message, debug id and details', async (t) => {
  const { api } = await setup(t)
  const { redirect_urls: _left, ...withoutRedirects } = PAYMENT
  const error = await api.createPayment(withoutRedirects, 'bad-create').catch((caught: unknown) => caught)
  t.match(error, {
    code: 'PAYWIRE_ERR_PROVIDER',
    providerCode: 'VALIDATION_ERROR',
    httpStatus: 400,
    debugId: /^[0-9a-f]{13}$/,
    paypal: { name: 'VALIDATION_ERROR', message: String, debug_id: /^[0-9a-f]{13}$/, details: [{ field: 'redirect_urls' }], information_link: /^https:/ }
  })
  t.equal((error as { debugId: string }).debugId, (error as { paypal: { debug_id: string } }).paypal.debug_id)
  t.match(await api.getPayment('PAYID-UNKNOWN0000000000000000').catch((caught: unknown) => caught), { providerCode: 'INVALID_RESOURCE_ID', httpStatus: 404 })
})

t.test('5xx answers are retried with backoff for calls safe to repeat, up to http.Retry', async (t) => {
  const { api, paypal, logger } = await setup(t, { 'log.LogEnabled': true, 'http.Retry': 2 })
  const payment = await api.createPayment(PAYMENT, 'retry-create')
  paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v1/payments/payment/*', times: 2 })
  t.equal((await api.getPayment(payment.id)).id, payment.id, 'the third attempt answered')
  paypal.simulator.faults.inject({ kind: 'error', status: 500, method: 'GET', path: '/v1/payments/payment/*', times: 3 })
  t.match(await api.getPayment(payment.id).catch((caught: unknown) => caught), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'INTERNAL_SERVICE_ERROR', httpStatus: 500 })
  const gets = logger.calls().filter((call) => call.startsWith('GET'))
  t.same(gets, [
    `GET /v1/payments/payment/${payment.id} 503`, `GET /v1/payments/payment/${payment.id} 503`, `GET /v1/payments/payment/${payment.id} 200`,
    `GET /v1/payments/payment/${payment.id} 500`, `GET /v1/payments/payment/${payment.id} 500`, `GET /v1/payments/payment/${payment.id} 500`
  ])
  t.same(logger.lines.filter((line) => line.level === 'warn').length, 5, '5xx answers are logged as warnings')
})

t.test('a state-changing call without a PayPal-Request-Id is never repeated', async (t) => {
  const { api, paypal, logger } = await setup(t, { 'log.LogEnabled': true })
  paypal.simulator.faults.inject({ kind: 'error', status: 500, method: 'POST', path: '/v1/notifications/verify-webhook-signature' })
  const fields = { auth_algo: 'SHA256withRSA', cert_url: 'https://api.paypal.com/cert', transmission_id: 'a', transmission_sig: 'b', transmission_time: 'c' }
  t.match(await api.verifyWebhookSignature(fields, '{}').catch((caught: unknown) => caught), { httpStatus: 500 })
  t.equal(logger.calls().filter((call) => call.includes('verify-webhook-signature')).length, 1)
})

t.test('429 is retried: PayPal did no work, so even a call without a request id goes again', async (t) => {
  const { api, paypal, logger } = await setup(t, { 'log.LogEnabled': true })
  paypal.simulator.faults.inject({ kind: 'rate_limit', path: '/v1/payments/payment' })
  t.match(await api.createPayment(PAYMENT, 'limited-create'), { id: String, state: 'created' })
  t.same(logger.calls().filter((call) => call.startsWith('POST /v1/payments')), ['POST /v1/payments/payment 429', 'POST /v1/payments/payment 201'])
  t.equal(paypal.simulator.counters().paymentsCreated, 1, 'one payment at PayPal')
  paypal.simulator.faults.inject({ kind: 'rate_limit', path: '/v1/payments/payment', times: 3 })
  t.match(await api.createPayment(PAYMENT, 'limited-again').catch((caught: unknown) => caught), { providerCode: 'RATE_LIMIT_REACHED', httpStatus: 429 }, 'within http.Retry, then PayPal\'s error')
})

t.test('a timeout (http.CURLOPT_TIMEOUT) is retried like a 5xx; every attempt failing is NO_RESPONSE', async (t) => {
  const { api, paypal } = await setup(t, { 'http.CURLOPT_TIMEOUT': 0.3 })
  const payment = await api.createPayment(PAYMENT, 'slow-create')
  paypal.simulator.faults.inject({ kind: 'delay', delayMs: 1000, method: 'GET', path: '/v1/payments/payment/*' })
  t.equal((await api.getPayment(payment.id)).id, payment.id)
  paypal.simulator.faults.inject({ kind: 'delay', delayMs: 1000, method: 'GET', path: '/v1/payments/payment/*', times: 3 })
  t.match(await api.getPayment(payment.id).catch((caught: unknown) => caught), {
    code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'NO_RESPONSE', httpStatus: undefined, message: /no answer from PayPal for \/v1\/payments\/payment\//
  })
})

t.test('the token call is retried on 5xx too, and goes to oauth.EndPoint', async (t) => {
  const paypalFixture = await startPaypal(t)
  const oauth = await recordingProxy(t, paypalFixture.endpoint)
  const http = new UndiciHttpClient()
  t.teardown(() => http.close())
  const api = new PaypalRestApi(configFor(paypalFixture, { 'service.EndPoint': paypalFixture.endpoint, 'oauth.EndPoint': oauth.url, 'http.RetryBackoffMs': 1 }),
    http, new CapturingLogger())
  paypalFixture.paypal.simulator.faults.inject({ kind: 'error', status: 503, path: '/v1/oauth2/token' })
  await api.createPayment(PAYMENT, 'oauth-create')
  t.same(oauth.requests.map((request) => `${request.method} ${request.path}`), ['POST /v1/oauth2/token', 'POST /v1/oauth2/token'])
  t.equal(paypalFixture.paypal.simulator.counters().paymentsCreated, 1)
})

t.test('on the wire: http.headers.*, PayPal-Request-Id, JSON and the Bearer token; the client secret only in the token call', async (t) => {
  const paypalFixture = await startPaypal(t)
  const wire = await recordingProxy(t, paypalFixture.endpoint)
  const http = new UndiciHttpClient()
  t.teardown(() => http.close())
  const api = new PaypalRestApi(configFor(paypalFixture, { 'service.EndPoint': wire.url, 'http.headers.PayPal-Partner-Attribution-Id': 'PAYWIRE-BN' }),
    http, new CapturingLogger())
  const payment = await api.createPayment(PAYMENT, 'wire-create')
  await api.getPayment(payment.id)
  const [token, create, get] = wire.requests
  t.match(token?.headers, { 'paypal-partner-attribution-id': 'PAYWIRE-BN', 'content-type': 'application/x-www-form-urlencoded', authorization: /^Basic / })
  t.equal(token?.body, 'grant_type=client_credentials')
  t.match(create?.headers, { 'paypal-partner-attribution-id': 'PAYWIRE-BN', 'paypal-request-id': 'wire-create', 'content-type': 'application/json', authorization: /^Bearer / })
  t.same(JSON.parse(create?.body ?? ''), PAYMENT)
  t.match(get?.headers, { 'paypal-partner-attribution-id': 'PAYWIRE-BN', authorization: create?.headers.authorization })
  t.notOk(get?.headers['paypal-request-id'])
})

t.test('the configured timeouts reach the HTTP client', async (t) => {
  const { api, http } = await setup(t, { 'http.ConnectionTimeOut': 2, 'http.CURLOPT_TIMEOUT': 9 })
  await api.createPayment(PAYMENT, 'timeouts-create')
  t.ok(http.requests.length >= 2)
  for (const request of http.requests) t.match(request, { connectTimeoutMs: 2000, timeoutMs: 9000 })
})

t.test('log lines: one per call, at the configured level, never a secret, an access token or a body', async (t) => {
  const { api, paypal, logger, accessTokens, client } = await setup(t, { 'log.LogEnabled': true, 'log.LogLevel': 'INFO' })
  const payment = await api.createPayment(PAYMENT, 'logged-create')
  paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'GET', path: '/v1/payments/payment/*' })
  await api.getPayment(payment.id)
  t.same(logger.calls(), ['POST /v1/oauth2/token 200', 'POST /v1/payments/payment 201', `GET /v1/payments/payment/${payment.id} 503`, `GET /v1/payments/payment/${payment.id} 200`])
  t.match(logger.lines[1], { level: 'info', message: 'PayPal call', fields: { paypal: { gateway: 'paypal', method: 'POST', path: '/v1/payments/payment', status: 201, debugId: /^[0-9a-f]{13}$/, attempt: 1, ms: Number } } })
  t.match(logger.lines[2], { level: 'warn', fields: { paypal: { status: 503 } } })
  t.match(logger.lines[3], { fields: { paypal: { attempt: 2 } } })
  const text = logger.text()
  t.notMatch(text, client.clientSecret)
  for (const token of accessTokens()) t.notMatch(text, token)
  t.notMatch(text, 'Secret mug description')
  t.notMatch(text, 'grant_type')
})

t.test('log levels: WARN keeps only failures; off logs nothing', async (t) => {
  const warn = await setup(t, { 'log.LogEnabled': true, 'log.LogLevel': 'WARN', 'http.CURLOPT_TIMEOUT': 0.3 })
  const payment = await warn.api.createPayment(PAYMENT, 'warn-create')
  warn.paypal.simulator.faults.inject({ kind: 'delay', delayMs: 1000, method: 'GET', path: '/v1/payments/payment/*' })
  await warn.api.getPayment(payment.id)
  t.same(warn.logger.lines.map((line) => line.message), ['PayPal call failed without an answer'])
  t.match(warn.logger.lines[0]?.fields, { paypal: { method: 'GET', attempt: 1, error: 'TimeoutError' } })

  const off = await setup(t)
  await off.api.createPayment(PAYMENT, 'quiet-create')
  t.same(off.logger.lines.map((line) => `${line.level} ${line.message}`), ['debug paywire: PayPal call', 'debug paywire: PayPal call'],
    'without log.LogEnabled, the calls (token, payment) are Paywire\'s own debug lines')
  t.match(off.logger.lines[1]?.fields, { provider: { name: 'PayPal', method: 'POST', path: '/v1/payments/payment', status: 201, debugId: /^[0-9a-f]{13}$/, attempt: 1, ms: Number } })
  t.notMatch(off.logger.text(), off.client.clientSecret)
})

t.test('inspect() and JSON of the API never show the secret or the access token', async (t) => {
  const { api, accessTokens, client } = await setup(t)
  await api.createPayment(PAYMENT, 'inspect-create')
  const shown = `${inspect(api, { showHidden: true, depth: 10 })}${JSON.stringify(api)}`
  t.notMatch(shown, client.clientSecret)
  t.equal(accessTokens().length, 1)
  t.notMatch(shown, accessTokens()[0] as string)
  t.match(JSON.parse(JSON.stringify(api)), { config: { clientSecret: '<redacted>' } })
})

t.test('answers that are not what PayPal\'s API describes are coded errors', async (t) => {
  const { api, http } = await setup(t)
  http.script = (request) => request.url.endsWith('/v1/oauth2/token') ? { statusCode: 200, headers: {}, body: '{"token_type":"Bearer"}' } : undefined
  t.match(await api.getPayment('PAYID-1').catch((caught: unknown) => caught), { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'INVALID_RESPONSE', message: /\/v1\/oauth2\/token/ })

  http.script = (request) => request.url.includes('/v1/payments/') ? { statusCode: 200, headers: { 'paypal-debug-id': 'bbbbbbbbbbbbb' }, body: '<html>' } : undefined
  t.match(await api.getPayment('PAYID-1').catch((caught: unknown) => caught), { providerCode: 'INVALID_RESPONSE', debugId: 'bbbbbbbbbbbbb', httpStatus: 200 })
  http.script = (request) => request.url.includes('/v1/payments/') ? { statusCode: 204, headers: {}, body: '' } : undefined
  t.same(await api.getPayment('PAYID-1'), {})
  http.script = (request) => request.url.includes('/v1/payments/') ? { statusCode: 418, headers: {}, body: 'teapot' } : undefined
  t.match(await api.getPayment('PAYID-1').catch((caught: unknown) => caught), { providerCode: 'HTTP_418', message: /PayPal answered 418 for \/v1\/payments\/payment\/PAYID-1/ })
})
