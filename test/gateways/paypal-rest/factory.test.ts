import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'
import t from 'tap'
import { PAYPAL_REST_FACTORY_NAME, PaypalRestGatewayFactory } from '../../../gateways/paypal-rest/index.ts'
import {
  Authorize, Capture, HttpClient, HttpRedirect, Logger, Payment, PaywireBuilder, type GatewayOptions, type Paywire
} from '../../../plugins/core/index.ts'
import { CapturingLogger, ScriptedHttpClient, type Teardown } from './fixtures/recorders.ts'
import { startPaypal } from './fixtures/shop.ts'

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))
const SECRET = 'factory-secret-4b1d'

function build (t: Teardown, gateways: Record<string, GatewayOptions>, factoryName = PAYPAL_REST_FACTORY_NAME) {
  const logger = new CapturingLogger()
  const http = new ScriptedHttpClient()
  const builder = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addGlobalService(Logger, logger)
    .addGlobalService(HttpClient, http)
    .addGatewayFactory(factoryName, new PaypalRestGatewayFactory())
  for (const [name, options] of Object.entries(gateways)) builder.addGateway(name, options)
  const paywire = builder.getPaywire()
  t.teardown(async () => {
    await paywire.close()
    await http.close()
  })
  return { paywire, logger, http }
}

async function startCapture (paywire: Paywire, gateway: string): Promise<unknown> {
  const storage = paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { gatewayName: gateway, totalAmount: 100, currencyCode: 'USD' })
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken(gateway, payment, 'done')
  return await paywire.getGateway(gateway).execute(new Capture(token), { catchReply: true })
}

t.test('client_id and client_secret are checked when the gateway is built: the error names the option, never the secret', async (t) => {
  const { paywire } = build(t, {
    noId: { factory: 'paypal_rest', client_secret: SECRET },
    emptySecret: { factory: 'paypal_rest', client_id: 'id', client_secret: '' },
    nothing: { factory: 'paypal_rest' }
  })
  const noId = (() => { try { paywire.getGateway('noId') } catch (error) { return error } })()
  t.match(noId, { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: 'Gateway "noId": option "client_id" is required and must not be empty.' })
  t.notMatch(inspect(noId, { depth: 10 }), SECRET)
  t.throws(() => paywire.getGateway('emptySecret'), { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: /"emptySecret": option "client_secret"/ })
  t.throws(() => paywire.getGateway('nothing'), { message: /option "client_id"/ })
})

t.test('sdk_config.ini and the config map, through gateway options: the map wins, the file fills the rest', async (t) => {
  const { paypal, endpoint, client } = await startPaypal(t)
  const { paywire, http, logger } = build(t, {
    paypal: {
      factory: 'paypal_rest',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      config_path: FIXTURES,
      // The file says live mode at https://file.paypal.example: the map points at the simulator.
      config: { 'service.EndPoint': endpoint, 'http.RetryBackoffMs': 1 }
    }
  })
  const reply = await startCapture(paywire, 'paypal')
  t.ok(reply instanceof HttpRedirect)
  t.equal(paypal.simulator.counters().paymentsCreated, 1)
  t.ok(http.requests.every((request) => request.url.startsWith(endpoint)))
  t.ok(http.requests.every((request) => request.headers?.['PayPal-Partner-Attribution-Id'] === 'FILE-BN-CODE'), 'http.headers.* from the file')
  t.ok(http.requests.every((request) => request.connectTimeoutMs === 30_000 && request.timeoutMs === 45_000), 'timeouts from the file')
  t.same(logger.calls(), ['POST /v1/oauth2/token 200', 'POST /v1/payments/payment 201'], 'log.LogEnabled from the file, through the application\'s logger')
})

t.test('options also work with the factory\'s prefix, and under another factory name', async (t) => {
  const { paypal, endpoint, client } = await startPaypal(t)
  const { paywire } = build(t, {
    prefixed: {
      factory: 'paypal_v1',
      'paypal_rest.client_id': client.clientId,
      'paypal_rest.client_secret': client.clientSecret,
      'paypal_rest.config': { 'service.EndPoint': endpoint }
    }
  }, 'paypal_v1')
  t.ok(await startCapture(paywire, 'prefixed') instanceof HttpRedirect)
  t.equal(paypal.simulator.counters().paymentsCreated, 1)
})

t.test('each gateway has its own credentials and its own access token', async (t) => {
  const { paypal, endpoint, client } = await startPaypal(t)
  const other = { clientId: 'second-client', clientSecret: 'second-secret' }
  paypal.simulator.addClient(other)
  const config = { 'service.EndPoint': endpoint }
  const { paywire } = build(t, {
    first: { factory: 'paypal_rest', client_id: client.clientId, client_secret: client.clientSecret, config },
    second: { factory: 'paypal_rest', client_id: other.clientId, client_secret: other.clientSecret, config }
  })
  for (const gateway of ['first', 'second', 'first', 'second']) await startCapture(paywire, gateway)
  t.match(paypal.simulator.counters(), { tokenGrants: 2, paymentsCreated: 4 })
})

t.test('what the gateway does not do is a coded error, with nothing sent to PayPal', async (t) => {
  const { endpoint, client } = await startPaypal(t)
  const { paywire, http } = build(t, { paypal: { factory: 'paypal_rest', client_id: client.clientId, client_secret: client.clientSecret, config: { 'service.EndPoint': endpoint } } })
  const payment = Object.assign(new Payment(), { totalAmount: 100, currencyCode: 'USD' })
  await paywire.getStorage(Payment).update(payment)
  await t.rejects(paywire.getGateway('paypal').execute(new Authorize(payment)), { code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED', message: /Authorize/ })
  t.same(http.requests, [])
})
