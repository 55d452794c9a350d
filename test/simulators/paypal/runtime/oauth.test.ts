import t from 'tap'
import { basic, CLIENT, grantToken, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('client credentials grant a Bearer token shaped like PayPal’s', async (t) => {
  const app = simulator(t)
  const response = await grantToken(app)
  t.equal(response.statusCode, 200)
  t.match(response.headers['paypal-debug-id'], /^[0-9a-f]{13}$/)
  const body = response.json()
  t.match(body, {
    scope: /https:\/\/api\.paypal\.com\/v1\/payments\/\.\*/,
    access_token: /^A21AA/,
    token_type: 'Bearer',
    app_id: /^APP-[A-Z0-9]{17}$/,
    expires_in: 32400,
    nonce: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ[\w-]{43}$/
  })
  t.equal(app.simulator.counters().tokenGrants, 1)
  t.equal((await grantToken(app)).json().app_id, body.app_id, 'one app id per client')
})

t.test('wrong or unknown credentials get 401 invalid_client', async (t) => {
  const app = simulator(t)
  for (const authorization of [basic(CLIENT.clientId, 'wrong'), basic('nobody', 'secret'), undefined, 'Bearer abc']) {
    const response = await app.inject({
      method: 'POST', url: '/v1/oauth2/token', headers: { ...FORM, ...(authorization === undefined ? {} : { authorization }) }, payload: 'grant_type=client_credentials'
    })
    t.equal(response.statusCode, 401)
    t.same(response.json(), { error: 'invalid_client', error_description: 'Client Authentication failed' })
  }
  t.equal(app.simulator.counters().tokenGrants, 0)
})

t.test('empty id or secret get 400 "client id or secret is null"', async (t) => {
  const app = shared
  for (const authorization of [basic('', 'secret'), basic(CLIENT.clientId, ''), `Basic ${Buffer.from('no-colon').toString('base64')}`]) {
    const response = await app.inject({ method: 'POST', url: '/v1/oauth2/token', headers: { ...FORM, authorization }, payload: 'grant_type=client_credentials' })
    t.equal(response.statusCode, 400)
    t.same(response.json(), { error_description: 'client id or secret is null', error: 'invalid_client' })
  }
})

t.test('only grant_type=client_credentials', async (t) => {
  const app = shared
  const authorization = basic(CLIENT.clientId, CLIENT.clientSecret)
  const missing = await app.inject({ method: 'POST', url: '/v1/oauth2/token', headers: { authorization } })
  t.equal(missing.statusCode, 400)
  t.same(missing.json(), { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' })
  const other = await app.inject({ method: 'POST', url: '/v1/oauth2/token', headers: { ...FORM, authorization }, payload: 'grant_type=password' })
  t.same(other.json(), { error: 'unsupported_grant_type', error_description: 'Unsupported grant type' })
  const json = await app.inject({ method: 'POST', url: '/v1/oauth2/token', headers: { authorization }, payload: { grant_type: 'client_credentials' } })
  t.equal(json.statusCode, 415, 'form bodies only, as PayPal')
  t.equal(json.json().name, 'UNSUPPORTED_MEDIA_TYPE')
})

t.test('tokens expire with the injected clock', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { accessTokenTtlSeconds: 60, now: () => now })
  const token = (await grantToken(app)).json()
  t.equal(token.expires_in, 60)
  const list = async (): Promise<{ statusCode: number, json: () => unknown }> =>
    await app.inject({ url: '/v1/payments/payment', headers: { authorization: `Bearer ${token.access_token}` } })
  now += 59_000
  t.equal((await list()).statusCode, 200, 'still valid before expiry')
  now += 1_000
  const expired = await list()
  t.equal(expired.statusCode, 401)
  t.same(expired.json(), { error: 'invalid_token', error_description: 'Access Token not found in cache' })
  now -= 10_000
  t.equal((await list()).statusCode, 401, 'an expired token is forgotten, not revived')
})

t.test('unknown tokens and missing headers on REST calls', async (t) => {
  const app = shared
  const unknown = await app.inject({ url: '/v1/payments/payment', headers: { authorization: 'Bearer A21AAnope' } })
  t.equal(unknown.statusCode, 401)
  t.same(unknown.json(), { error: 'invalid_token', error_description: 'Access Token not found in cache' })
  const missing = await app.inject({ url: '/v1/payments/payment/PAYID-X' })
  t.equal(missing.statusCode, 401)
  t.match(missing.json(), { name: 'AUTHENTICATION_FAILURE', debug_id: missing.headers['paypal-debug-id'] })
})

t.test('expireAllTokens and issueAccessToken', async (t) => {
  const app = simulator(t)
  const token = app.simulator.issueAccessToken()
  const headers = { authorization: `Bearer ${token}` }
  t.equal((await app.inject({ url: '/v1/payments/payment', headers })).statusCode, 200)
  t.equal(app.simulator.counters().tokenGrants, 0, 'not an OAuth grant')
  app.simulator.expireAllTokens()
  t.equal((await app.inject({ url: '/v1/payments/payment', headers })).statusCode, 401)
  t.throws(() => app.simulator.issueAccessToken('nobody'), /unknown client nobody/)
})
