import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { UndiciHttpClient } from '../../../plugins/core/engine/index.ts'
import { PaypalRestClient, PaypalRestConfig, isPaypalCallError } from '../../../gateways/paypal-shared/index.ts'
import { CapturingLogger } from '../paypal-rest/fixtures/recorders.ts'

/*
 * The REST client both PayPal gateways stand on, against a plain loopback server that answers
 * as PayPal's REST reference describes (https://developer.paypal.com/api/rest/ — authentication,
 * requests, responses, idempotency): tokens, retries, PayPal-Request-Id and error bodies.
 */

interface Received { method: string, url: string, headers: IncomingMessage['headers'], body: string }
type Answer = (request: Received, response: ServerResponse) => void

const received: Received[] = []
let answer: Answer = () => {}
const server = createServer((request, response) => {
  let body = ''
  request.on('data', (chunk: Buffer) => { body += chunk.toString() })
  request.on('end', () => {
    const seen = { method: request.method as string, url: request.url as string, headers: request.headers, body }
    received.push(seen)
    answer(seen, response)
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const http = new UndiciHttpClient()
t.teardown(async () => {
  await http.close()
  await new Promise((resolve) => server.close(resolve))
})

function json (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(typeof body === 'string' ? body : JSON.stringify(body))
}

/** PayPal's token answer, then `api` for every REST call. */
function paypal (api: Answer, expiresIn = 32400): void {
  let tokens = 0
  answer = (request, response) => {
    if (request.url === '/v1/oauth2/token') {
      json(response, 200, { scope: 'https://uri.paypal.com/services/payments', access_token: `A21AA-token-${++tokens}`, token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: expiresIn, nonce: 'n' })
      return
    }
    api(request, response)
  }
}

function client (logger = new CapturingLogger(), config: Record<string, unknown> = {}): PaypalRestClient {
  return new PaypalRestClient(new PaypalRestConfig({
    gatewayName: 'paypal',
    clientId: 'client-id',
    clientSecret: 'client-secret-canary',
    configPath: '',
    webhookId: '',
    webhookVerification: 'online',
    config: { 'service.EndPoint': origin, 'http.RetryBackoffMs': 0, ...config }
  }), http, logger)
}

function calls (): string[] {
  return received.map((request) => `${request.method} ${request.url}`)
}

t.beforeEach(() => { received.length = 0 })

t.test('one token for concurrent calls, kept until shortly before it expires, renewed once on a 401', async (t) => {
  let revoked = false
  paypal((request, response) => {
    if (revoked && request.headers.authorization === 'Bearer A21AA-token-1') {
      json(response, 401, { error: 'invalid_token', error_description: 'Token signature verification failed' })
      return
    }
    json(response, 200, { id: 'PAY-1', seen: request.headers.authorization })
  })
  const api = client()
  const [first, second] = await Promise.all([api.request('GET', '/v1/payments/payment/PAY-1'), api.request('GET', '/v1/payments/payment/PAY-1')])
  t.equal(api.tokenRequests, 1, 'concurrent calls share one token request')
  t.same([first.seen, second.seen], ['Bearer A21AA-token-1', 'Bearer A21AA-token-1'])
  const token = received.find((request) => request.url === '/v1/oauth2/token') as Received
  t.equal(token.headers.authorization, `Basic ${Buffer.from('client-id:client-secret-canary').toString('base64')}`)
  t.equal(token.body, 'grant_type=client_credentials')
  revoked = true
  const again = await api.request('GET', '/v1/payments/payment/PAY-1')
  t.equal(again.seen, 'Bearer A21AA-token-2', 'a 401 gets one fresh token and one more try')
  t.equal(api.tokenRequests, 2)
})

t.test('a token about to expire is renewed before it is used', async (t) => {
  paypal((request, response) => json(response, 200, { seen: request.headers.authorization }), 0)
  const api = client()
  await api.request('GET', '/v2/checkout/orders/O-1')
  await api.request('GET', '/v2/checkout/orders/O-1')
  t.equal(api.tokenRequests, 2)
})

t.test('calls safe to repeat are retried when the outcome is open; others are not', async (t) => {
  let failures = 1
  paypal((request, response) => {
    if (failures-- > 0) {
      json(response, 503, { name: 'SERVICE_UNAVAILABLE', message: 'try later' })
      return
    }
    json(response, 201, { id: 'REF-1', requestId: request.headers['paypal-request-id'], prefer: request.headers.prefer })
  })
  const logger = new CapturingLogger()
  const refund = await client(logger).request('POST', '/v2/payments/captures/C-1/refund', { body: {}, requestId: 'pay-1:refund:1', headers: { prefer: 'return=representation' } })
  t.same(refund, { id: 'REF-1', requestId: 'pay-1:refund:1', prefer: 'return=representation' })
  t.same(calls().filter((call) => !call.includes('oauth2')), ['POST /v2/payments/captures/C-1/refund', 'POST /v2/payments/captures/C-1/refund'])
  t.match(logger.lines.filter((line) => line.level === 'warn'), [{ message: /outcome open; trying again/ }])

  failures = 1
  received.length = 0
  const refused = await client().request('POST', '/v1/payments/payment', { body: { intent: 'sale' } }).catch((error: unknown) => error)
  t.ok(isPaypalCallError(refused))
  t.match(refused, { httpStatus: 503, paypal: { name: 'SERVICE_UNAVAILABLE', message: 'try later' } })
  t.equal(calls().filter((call) => call === 'POST /v1/payments/payment').length, 1, 'a call without a request id is sent once')
})

t.test('PayPal\'s error bodies become coded provider errors with what PayPal said', async (t) => {
  paypal((request, response) => {
    if (request.url.endsWith('/v1')) {
      json(response, 400, { name: 'VALIDATION_ERROR', message: 'Invalid request', debug_id: 'f1c2', information_link: 'https://developer.paypal.com/docs/api/payments/#errors', details: [{ field: 'amount', issue: 'required' }] })
    } else if (request.url.endsWith('/v2')) {
      json(response, 422, { name: 'UNPROCESSABLE_ENTITY', message: 'The requested action could not be performed.', details: [{ issue: 'INSTRUMENT_DECLINED' }] }, { 'paypal-debug-id': 'hdr-debug' })
    } else if (request.url.endsWith('/html')) {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>')
    } else if (request.url.endsWith('/empty')) {
      response.writeHead(204).end()
    } else {
      response.writeHead(500).end('not json')
    }
  })
  const api = client(new CapturingLogger(), { 'http.Retry': 0 })
  t.match(await api.request('POST', '/x/v1').catch((error: unknown) => error), {
    code: String, httpStatus: 400, paypal: { name: 'VALIDATION_ERROR', debug_id: 'f1c2', information_link: String, details: [{ field: 'amount' }] }
  })
  t.match(await api.request('POST', '/x/v2').catch((error: unknown) => error), { httpStatus: 422, paypal: { name: 'UNPROCESSABLE_ENTITY', debug_id: 'hdr-debug', details: [{ issue: 'INSTRUMENT_DECLINED' }] } })
  t.match(await api.request('GET', '/x/html').catch((error: unknown) => error), { httpStatus: 200, paypal: { name: 'INVALID_RESPONSE' } })
  t.same(await api.request('POST', '/x/empty'), {})
  t.match(await api.request('GET', '/x/other').catch((error: unknown) => error), { httpStatus: 500, paypal: { name: 'HTTP_500', message: 'PayPal answered 500 for /x/other' } })
})

t.test('no answer at all is NO_RESPONSE after the attempts; a refused token is PayPal\'s OAuth error', async (t) => {
  answer = (request, response) => {
    if (request.url === '/v1/oauth2/token') {
      json(response, 401, { error: 'invalid_client', error_description: 'Client Authentication failed' })
      return
    }
    response.destroy()
  }
  const api = client(new CapturingLogger(), { 'http.Retry': 1 })
  t.match(await api.request('GET', '/v1/payments/payment/PAY-1').catch((error: unknown) => error), { paypal: { name: 'invalid_client', message: 'Client Authentication failed' } })
  t.equal(received.filter((request) => request.url === '/v1/oauth2/token').length, 1, 'a refused token is not retried')

  paypal((_request, response) => { response.destroy() })
  received.length = 0
  t.match(await client(new CapturingLogger(), { 'http.Retry': 1 }).request('GET', '/v1/payments/payment/PAY-1').catch((error: unknown) => error),
    { httpStatus: undefined, paypal: { name: 'NO_RESPONSE', message: 'no answer from PayPal for /v1/payments/payment/PAY-1' } })
  t.equal(calls().filter((call) => call === 'GET /v1/payments/payment/PAY-1').length, 2)

  answer = (_request, response) => json(response, 200, { access_token: 'A21AA-no-expiry' })
  t.match(await client().request('GET', '/v1/payments/payment/PAY-1').catch((error: unknown) => error), { paypal: { name: 'INVALID_RESPONSE' } }, 'a token answer without expires_in')
})

t.test('the webhook event is spliced into the verification body byte for byte; the secret is never shown', async (t) => {
  paypal((request, response) => json(response, 200, { verification_status: request.body.includes('"webhook_event":{"id": "WH-1" , "x":1.10}') ? 'SUCCESS' : 'FAILURE' }))
  const logger = new CapturingLogger()
  const api = client(logger, { 'log.LogEnabled': true, 'log.LogLevel': 'DEBUG' })
  t.equal(await api.verifyWebhookSignature({ transmission_id: 't-1' }, '{"id": "WH-1" , "x":1.10}'), true)
  const verification = received.find((request) => request.url === '/v1/notifications/verify-webhook-signature') as Received
  t.match(verification.body, /^\{"transmission_id":"t-1","webhook_id":"","webhook_event":\{/)
  t.notMatch(JSON.stringify(api), /client-secret-canary/)
  t.notMatch(logger.text(), /client-secret-canary|A21AA-token/)
  t.ok(logger.lines.some((line) => line.level === 'info' && line.message === 'PayPal call'), 'with log.LogEnabled, the SDK-style lines')
})
