import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'
import t from 'tap'
import { PAYPAL_HOSTS, PaypalRestConfig } from '../../../gateways/paypal-shared/index.ts'

const FIXTURES = fileURLToPath(new URL('../paypal-rest/fixtures/', import.meta.url))
const SECRET = 'EJ1r-very-secret-value'

function configWith (options: Partial<ConstructorParameters<typeof PaypalRestConfig>[0]> = {}): PaypalRestConfig {
  return new PaypalRestConfig({
    gatewayName: 'paypal',
    clientId: 'client-id',
    clientSecret: SECRET,
    configPath: '',
    config: {},
    webhookId: '',
    webhookVerification: 'online',
    ...options
  })
}

t.test('sdk_config.ini is read like PayPal\'s SDK: sections are cosmetic, every key is a dotted name', async (t) => {
  const config = configWith({ configPath: FIXTURES })
  t.equal(config.mode, 'live')
  t.equal(config.endpoint, 'https://file.paypal.example')
  t.equal(config.oauthEndpoint, 'https://file.paypal.example', 'oauth.EndPoint defaults to service.EndPoint')
  t.equal(config.connectTimeoutMs, 30_000)
  t.equal(config.timeoutMs, 45_000)
  t.equal(config.attempts, 2, 'http.Retry = 1: one retry after the first attempt')
  t.same(config.headers, { 'PayPal-Partner-Attribution-Id': 'FILE-BN-CODE' })
  t.equal(config.logLevel, 'info', 'FINE reads as INFO, as in PayPal\'s SDK')
  t.equal(config.clientId, 'client-id', 'acct1.* credentials are not used')
})

t.test('the config map wins over the file key by key', async (t) => {
  const config = configWith({ configPath: FIXTURES, config: { 'service.EndPoint': 'http://127.0.0.1:8089/', 'http.Retry': 0, 'log.LogLevel': 'ERROR' } })
  t.equal(config.endpoint, 'http://127.0.0.1:8089', 'from the map, trailing slash dropped')
  t.equal(config.attempts, 1)
  t.equal(config.logLevel, 'error')
  t.equal(config.mode, 'live', 'keys the map does not set come from the file')
  t.equal(config.timeoutMs, 45_000)
})

t.test('sections in the map and nested ini sections are cosmetic too', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'paypal-rest-'))
  t.teardown(() => rmSync(dir, { recursive: true }))
  writeFileSync(join(dir, 'sdk_config.ini'), '[Service.Live]\nmode = live\n[Http]\nhttp.Retry = 3\n')
  const config = configWith({ configPath: dir, config: { Http: { 'http.ConnectionTimeOut': '5' } } })
  t.equal(config.mode, 'live')
  t.equal(config.attempts, 4)
  t.equal(config.connectTimeoutMs, 5000)
})

t.test('mode chooses PayPal\'s host; service.EndPoint and oauth.EndPoint override it', async (t) => {
  t.equal(configWith().endpoint, PAYPAL_HOSTS.sandbox, 'sandbox by default')
  t.equal(configWith().endpoint, 'https://api-m.sandbox.paypal.com')
  t.equal(configWith({ config: { mode: 'LIVE' } }).endpoint, 'https://api-m.paypal.com', 'case-insensitive')
  const split = configWith({ config: { mode: 'live', 'service.EndPoint': 'https://rest.example', 'oauth.EndPoint': 'https://oauth.example' } })
  t.equal(split.endpoint, 'https://rest.example')
  t.equal(split.oauthEndpoint, 'https://oauth.example')
  t.throws(() => configWith({ config: { mode: 'production' } }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"config\.mode"/ })
  for (const endpoint of ['api.paypal.com', 'ftp://api.paypal.com', 42]) {
    t.throws(() => configWith({ config: { 'service.EndPoint': endpoint } }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"config\.service\.EndPoint"/ })
  }
  t.throws(() => configWith({ config: { 'oauth.EndPoint': 'nope' } }), { message: /"config\.oauth\.EndPoint"/ })
})

t.test('timeouts and retries: defaults, the legacy and curl names, and coded errors naming the option', async (t) => {
  const defaults = configWith()
  t.equal(defaults.connectTimeoutMs, 10_000)
  t.equal(defaults.timeoutMs, 60_000)
  t.equal(defaults.attempts, 3)
  t.equal(defaults.retryBackoffMs, 250)
  t.same(defaults.headers, {})
  t.equal(configWith({ config: { 'http.CURLOPT_CONNECTTIMEOUT': 7 } }).connectTimeoutMs, 7000)
  t.equal(configWith({ config: { 'http.ConnectionTimeOut': '2', 'http.CURLOPT_CONNECTTIMEOUT': 7 } }).connectTimeoutMs, 2000)
  t.equal(configWith({ config: { 'http.RetryBackoffMs': '0' } }).retryBackoffMs, 0)
  const invalid: Array<[string, unknown]> = [
    ['http.ConnectionTimeOut', '0'], ['http.ConnectionTimeOut', 'soon'], ['http.CURLOPT_TIMEOUT', -1],
    ['http.Retry', 11], ['http.Retry', 1.5], ['http.Retry', -1], ['http.RetryBackoffMs', 60_001]
  ]
  for (const [option, value] of invalid) {
    t.throws(() => configWith({ config: { [option]: value } }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: new RegExp(`"config\\.${option.replace('.', '\\.')}"`) }, `${option} = ${String(value)}`)
  }
})

t.test('http.headers.<Name> become extra headers', async (t) => {
  const config = configWith({ config: { 'http.headers.PayPal-Partner-Attribution-Id': 'BN-1', 'http.headers.X-Count': 3 } })
  t.same(config.headers, { 'PayPal-Partner-Attribution-Id': 'BN-1', 'X-Count': '3' })
})

t.test('log.LogEnabled and log.LogLevel', async (t) => {
  t.equal(configWith().logLevel, undefined, 'off by default')
  for (const enabled of [true, 'true', '1', 1]) t.equal(configWith({ config: { 'log.LogEnabled': enabled } }).logLevel, 'info', `enabled by ${String(enabled)}`)
  for (const disabled of [false, 'false', '', 0]) t.equal(configWith({ config: { 'log.LogEnabled': disabled, 'log.LogLevel': 'DEBUG' } }).logLevel, undefined)
  const levels: Record<string, string> = { DEBUG: 'debug', info: 'info', FINE: 'info', WARN: 'warn', WARNING: 'warn', ERROR: 'error' }
  for (const [level, expected] of Object.entries(levels)) {
    t.equal(configWith({ config: { 'log.LogEnabled': true, 'log.LogLevel': level } }).logLevel, expected, level)
  }
  t.throws(() => configWith({ config: { 'log.LogEnabled': true, 'log.LogLevel': 'LOUD' } }), { message: /"config\.log\.LogLevel"/ })
})

t.test('client_id and client_secret are required: the error names the option, never the secret', async (t) => {
  for (const missing of [undefined, null, '', '   ', 42]) {
    t.throws(() => configWith({ clientId: missing }), { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: 'Gateway "paypal": option "client_id" is required and must not be empty.' })
    t.throws(() => configWith({ clientSecret: missing }), { code: 'PAYWIRE_ERR_REQUIRED_OPTION', message: /option "client_secret"/ })
  }
  try {
    configWith({ clientId: '' })
  } catch (error) {
    t.notMatch(inspect(error), SECRET)
  }
})

t.test('the secret never shows in JSON or inspect() output; only the OAuth call gets it', async (t) => {
  const config = configWith({ config: { 'service.EndPoint': 'http://127.0.0.1:1' } })
  t.notMatch(JSON.stringify(config), SECRET)
  t.match(JSON.parse(JSON.stringify(config)), { clientId: 'client-id', clientSecret: '<redacted>', mode: 'sandbox', endpoint: 'http://127.0.0.1:1' })
  t.notMatch(inspect(config, { showHidden: true, depth: 10 }), SECRET)
  t.match(inspect(config), 'PaypalRestConfig')
  t.equal(config.basicAuthorization(), `Basic ${Buffer.from(`client-id:${SECRET}`).toString('base64')}`)
})

t.test('config_path and config must be what they say', async (t) => {
  t.throws(() => configWith({ configPath: 42 }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"config_path"/ })
  t.throws(() => configWith({ configPath: join(FIXTURES, 'missing') }), { message: /"config_path": cannot read .*sdk_config\.ini/ })
  t.same(configWith({ configPath: null }).headers, {})
  for (const config of ['mode=live', ['mode'], 7]) {
    t.throws(() => configWith({ config }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"config"/ })
  }
  t.equal(configWith({ config: null }).mode, 'sandbox')
})

t.test('webhook options', async (t) => {
  t.equal(configWith({ webhookId: 'WH1' }).webhookId, 'WH1')
  t.equal(configWith({ webhookId: undefined }).webhookId, '')
  t.equal(configWith({ webhookVerification: undefined }).webhookVerification, 'online')
  t.equal(configWith({ webhookVerification: 'offline' }).webhookVerification, 'offline')
  t.throws(() => configWith({ webhookVerification: 'none' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"webhook_verification"/ })
  // PayPal answers 400 to every verification with such an id: refused at boot instead.
  for (const webhookId of ['WH-1', 'x'.repeat(51), 'id with spaces']) {
    t.throws(() => configWith({ webhookId }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"webhook_id"/ }, webhookId)
  }
  t.equal(configWith({}).webhookMaxAgeSeconds, 300)
  t.equal(configWith({ webhookMaxAge: '60' }).webhookMaxAgeSeconds, 60)
  for (const webhookMaxAge of [0, -1, 1.5, 'soon', 86_401]) {
    t.throws(() => configWith({ webhookMaxAge }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"webhook_max_age"/ }, String(webhookMaxAge))
  }
})

t.test('webhook_trust_anchors: PEM certificates (one string or a list), checked at boot; none means Node\'s bundled roots', async (t) => {
  const { generateKeyPairSync } = await import('node:crypto')
  const { issueCertificate } = await import('../../../simulators/paypal/runtime/certificate.ts')
  const ca = (name: string) => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
    return issueCertificate({ publicKey, commonName: name, issuerName: name, issuerKey: privateKey, notBefore: new Date(), ca: true })
  }
  const [one, two] = [ca('CA one'), ca('CA two')]
  t.equal(configWith({}).webhookTrustAnchors, undefined)
  t.equal(configWith({ webhookTrustAnchors: '' }).webhookTrustAnchors, undefined)
  t.same(configWith({ webhookTrustAnchors: one + two }).webhookTrustAnchors?.map((anchor) => anchor.subject), ['C=US\nO=PayPal Simulator\nCN=CA one', 'C=US\nO=PayPal Simulator\nCN=CA two'])
  t.equal(configWith({ webhookTrustAnchors: [one, two] }).webhookTrustAnchors?.length, 2)
  for (const webhookTrustAnchors of ['not a certificate', 42, [one, 42], '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----']) {
    t.throws(() => configWith({ webhookTrustAnchors }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"webhook_trust_anchors"/ }, String(webhookTrustAnchors).slice(0, 20))
  }
})
