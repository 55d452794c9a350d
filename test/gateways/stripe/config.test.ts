import { inspect } from 'node:util'
import Fastify from 'fastify'
import Stripe from 'stripe'
import t from 'tap'
import { runDoctor } from '../../../scripts/doctor/doctor.ts'
import { StripeConfig, stripeGateway } from '../../../gateways/stripe/index.ts'
import { paywire } from '../../../plugins/core/index.ts'

const KEY = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'
const SECRET = 'whsec_5FZ4pTjXMZq1tYbK9Kq2nV8b'

function config (options: Record<string, unknown>, unknown: string[] = []): StripeConfig {
  return new StripeConfig('card', { secret_key: KEY, ...options }, unknown)
}

t.test('defaults: test mode from the key, the SDK\'s API version, Stripe\'s tolerance and the SDK\'s retries and timeout', async (t) => {
  const found = config({})
  t.match(found, { gatewayName: 'card', mode: 'test', apiVersion: Stripe.API_VERSION, webhookToleranceSeconds: 300, maxNetworkRetries: 2, timeoutMs: 80_000, host: undefined, port: undefined })
  t.same(found.webhookSecrets(), [])
  t.equal(found.secretKey(), KEY)
  t.equal(config({ secret_key: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc' }).mode, 'live')
  t.equal(config({ secret_key: 'rk_test_4eC39HqLyjWDarjtT1zdp7dc' }).mode, 'test', 'a restricted key')
  t.match(config({ webhook_tolerance: '600', max_network_retries: '0', timeout_ms: 500, port: '12111', host: '127.0.0.1', protocol: 'http', api_version: '2025-04-30.basil', mode: 'test', publishable_key: 'pk_test_TYooMQauvdEDq54NiTphI7jx' }),
    { webhookToleranceSeconds: 600, maxNetworkRetries: 0, timeoutMs: 500, port: 12111, host: '127.0.0.1', protocol: 'http', apiVersion: '2025-04-30.basil', publishableKey: 'pk_test_TYooMQauvdEDq54NiTphI7jx' })
  t.same(config({ webhook_secrets: `${SECRET}, whsec_rolled, ${SECRET}` }).webhookSecrets(), [SECRET, 'whsec_rolled'], 'a comma-separated list, once each')
  t.same(config({ webhook_secrets: [SECRET, 'whsec_rolled'] }).webhookSecrets(), [SECRET, 'whsec_rolled'])
})

t.test('bad options: coded errors naming the option, never its value', async (t) => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ secret_key: '' }, 'PAYWIRE_ERR_REQUIRED_OPTION', /"card": option "secret_key" is required/],
    [{ secret_key: 'pk_test_TYooMQauvdEDq54NiTphI7jx' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.secret_key.*publishable key/],
    [{ secret_key: 'sk_demo_x' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.secret_key.*sk_test_…/],
    [{ mode: 'prod' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.mode/],
    [{ mode: 'live' }, 'PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH', /mode is "live" but secret_key is a test key/],
    [{ publishable_key: 'pk_live_TYooMQauvdEDq54NiTphI7jx' }, 'PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH', /publishable_key is not a test key/],
    [{ publishable_key: 'sk_test_x' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.publishable_key/],
    [{ secret_key: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', host: '127.0.0.1' }, 'PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH', /for the simulator/],
    [{ webhook_secrets: 'secret' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.webhook_secrets.*whsec_…/],
    [{ webhook_secrets: [SECRET, 42] }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.webhook_secrets/],
    [{ webhook_tolerance: 0 }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.webhook_tolerance/],
    [{ max_network_retries: 11 }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.max_network_retries/],
    [{ timeout_ms: 1.5 }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.timeout_ms/],
    [{ api_version: 'latest' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.api_version/],
    [{ host: 'http://127.0.0.1' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.host/],
    [{ port: 70_000 }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.port/],
    [{ protocol: 'ftp' }, 'PAYWIRE_ERR_INVALID_OPTION', /card\.protocol/]
  ]
  for (const [options, code, message] of cases) {
    const error = (() => { try { config(options) } catch (thrown) { return thrown as Error } })()
    t.match(error, { code, message }, JSON.stringify(options))
    t.notMatch(error?.message, /4eC39HqLyjWDarjtT1zdp7dc|TYooMQauvdEDq54NiTphI7jx/, 'no key in the message')
  }
  t.throws(() => config({}, ['webhook_secret']), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /card\.webhook_secret.*did you mean webhook_secrets\?/ })
  t.throws(() => config({}, ['colour']), { message: /card\.colour": is not an option of the stripe gateway; its options: secret_key, webhook_secrets/ })
})

t.test('the secret key and webhook secrets never show in inspect() or JSON', async (t) => {
  const found = config({ webhook_secrets: SECRET, publishable_key: 'pk_test_TYooMQauvdEDq54NiTphI7jx', host: '127.0.0.1', port: 1, protocol: 'http' })
  for (const text of [inspect(found, { depth: 10 }), JSON.stringify(found), JSON.stringify({ nested: found })]) {
    t.notMatch(text, /4eC39HqLyjWDarjtT1zdp7dc|5FZ4pTjXMZq1tYbK9Kq2nV8b/)
    t.match(text, /<redacted>/)
  }
  t.match(JSON.parse(JSON.stringify(found)), { mode: 'test', publishableKey: 'pk_test_TYooMQauvdEDq54NiTphI7jx', host: '127.0.0.1' })
})

t.test('the options are checked when the application starts: a misspelt one fails app.ready() with a did-you-mean', async (t) => {
  for (const [options, message] of [
    [{ secret_key: KEY, webhook_secret: SECRET }, /shop\.webhook_secret.*did you mean webhook_secrets/],
    [{ 'stripe.secrett_key': KEY, secret_key: KEY }, /shop\.secrett_key.*did you mean secret_key/],
    [{ webhook_secrets: SECRET }, /"shop": option "secret_key" is required/]
  ] as const) {
    const app = Fastify()
    await app.register(paywire, { gateways: { shop: { factory: 'stripe', ...options } } })
    await app.register(stripeGateway)
    await t.rejects(async () => { await app.ready() }, { message }, JSON.stringify(Object.keys(options)))
    await app.close()
  }
  const good = Fastify()
  t.teardown(() => good.close())
  await good.register(paywire, { gateways: { shop: { factory: 'stripe', secret_key: KEY, webhook_secrets: SECRET }, other: { factory: 'stripe', secret_key: KEY } } })
  await good.register(stripeGateway)
  await good.ready()
  const gateway = good.paywire.getGateway('shop')
  t.notMatch(inspect(gateway, { depth: Infinity }), /4eC39HqLyjWDarjtT1zdp7dc|5FZ4pTjXMZq1tYbK9Kq2nV8b/, 'nothing the gateway holds shows a secret')
})

t.test('paywire doctor builds each stripe gateway and reports its option errors', async (t) => {
  let out = ''
  const code = await runDoctor(['test/gateways/stripe/fixtures/doctor-shop.ts'], { out: (text) => { out += text }, err: () => {} })
  t.equal(code, 2)
  t.match(out, /^card +stripe +2\.0 +ok$/m)
  t.match(out, /^typo +stripe +2\.0 +PAYWIRE_ERR_INVALID_OPTION +.*typo\.webhook_secret.*did you mean webhook_secrets\?/m)
  t.match(out, /^mixed +stripe +2\.0 +PAYWIRE_ERR_STRIPE_KEY_MODE_MISMATCH +/m)
  t.notMatch(out, /sk_test_doctor|whsec_doctor/)
})
