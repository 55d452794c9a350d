import t from 'tap'
import { call, KEY, startSimulator } from './helpers.ts'

/* Authentication, Request-Id, bodies and unknown paths (https://docs.stripe.com/api). */

t.test('the wire protocol', async (t) => {
  const { origin } = await startSimulator(t, { apiKeys: [KEY, 'sk_test_second_key_1234'] })

  t.test('Bearer and Basic (key as user, no password) authenticate; a missing or unknown key is 401', async (t) => {
    t.equal((await call(origin, 'GET', '/v1/events')).status, 200)
    const basic = Buffer.from('sk_test_second_key_1234:').toString('base64')
    t.equal((await call(origin, 'GET', '/v1/events', undefined, { authorization: `Basic ${basic}` })).status, 200)
    const none = await fetch(`${origin}/v1/events`)
    t.equal(none.status, 401)
    t.match(await none.json(), { error: { type: 'invalid_request_error', message: /You did not provide an API key/ } })
    const wrong = await call(origin, 'GET', '/v1/events', undefined, { authorization: 'Bearer sk_test_wrongwrongwrong9876' })
    t.equal(wrong.status, 401)
    t.match(wrong.body, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****9876' } })
    t.notMatch(JSON.stringify(wrong.body), /wrongwrong/, 'the key is not echoed')
    t.equal((await call(origin, 'GET', '/v1/events', undefined, { authorization: 'Token abc' })).status, 401)
    t.equal((await call(origin, 'GET', '/v1/events', undefined, { authorization: 'Bearer short' })).body.error.message, 'Invalid API Key provided: *****')
  })

  t.test('every answer has a Request-Id, errors included', async (t) => {
    const ok = await call(origin, 'GET', '/v1/events')
    const missing = await call(origin, 'GET', '/v1/payment_intents/pi_none')
    t.match(ok.headers.get('request-id'), /^req_\w{14}$/)
    t.match(missing.headers.get('request-id'), /^req_/)
    t.not(ok.headers.get('request-id'), missing.headers.get('request-id'))
  })

  t.test('unknown paths, other body types and malformed keys', async (t) => {
    const unknown = await call(origin, 'GET', '/v1/customers')
    t.equal(unknown.status, 404)
    t.match(unknown.body, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL (GET: /v1/customers). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.' } })
    const json = await fetch(`${origin}/v1/payment_intents`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: '{"amount":100}' })
    t.equal(json.status, 400)
    t.match(await json.json(), { error: { type: 'invalid_request_error', message: /application\/x-www-form-urlencoded/ } })
    const broken = await call(origin, 'POST', '/v1/payment_intents', { 'metadata[a': '1' })
    t.match(broken.body, { error: { type: 'invalid_request_error', param: 'metadata[a' } })
  })
})

t.test('options are checked when the simulator is built', async (t) => {
  const { buildStripeSimulator } = await import('paywire/stripe-simulator')
  t.throws(() => buildStripeSimulator({ apiKeys: [] }), TypeError)
  t.throws(() => buildStripeSimulator({ apiKeys: ['sk_live_x'] }), /sk_test_/)
  t.throws(() => buildStripeSimulator({ publicUrl: 'nowhere' }), /publicUrl/)
  t.throws(() => buildStripeSimulator({ sessionTtlSeconds: 0 }), /sessionTtlSeconds must be a positive number/)
  t.throws(() => buildStripeSimulator({ webhookDelivery: { timeoutMs: Number.NaN } }), /timeoutMs/)
  t.throws(() => buildStripeSimulator().simulator.clock.advance(-1), RangeError)
  const app = buildStripeSimulator({ publicUrl: 'https://stripe.test/' })
  t.teardown(() => app.close())
  t.equal(app.simulator.baseUrl(), 'https://stripe.test')
  const session = await app.inject({ method: 'POST', url: '/v1/checkout/sessions', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'mode=payment&line_items[0][quantity]=1&line_items[0][price_data][currency]=eur&line_items[0][price_data][unit_amount]=5&line_items[0][price_data][product_data][name]=x' })
  t.match(session.json().url, /^https:\/\/stripe\.test\/c\/pay\/cs_test_/)
  const local = buildStripeSimulator()
  t.teardown(() => local.close())
  t.equal(local.simulator.baseUrl(), 'http://localhost', 'not listening: localhost')
})
