import t from 'tap'
import { bearer, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)

t.test('malformed JSON is MALFORMED_REQUEST, other media types 415', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const malformed = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"intent":' })
  t.equal(malformed.statusCode, 400)
  t.same(malformed.json(), {
    name: 'MALFORMED_REQUEST',
    message: 'The request JSON is not well formed.',
    debug_id: malformed.headers['paypal-debug-id'],
    information_link: 'https://developer.paypal.com/webapps/developer/docs/api/#MALFORMED_REQUEST'
  })
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
    const wrong = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: { ...auth, 'content-type': contentType }, payload: 'intent=sale' })
    t.equal(wrong.statusCode, 415, contentType)
    t.match(wrong.json(), { name: 'UNSUPPORTED_MEDIA_TYPE', message: "The server does not support the request payload's media type." })
  }
  const empty = await app.inject({ method: 'POST', url: '/v1/payments/payment', headers: { ...auth, 'content-type': 'application/json' }, payload: '' })
  t.equal(empty.json().name, 'VALIDATION_ERROR', 'an empty JSON body is an empty request')
})

t.test('other client errors are MALFORMED_REQUEST, never Fastify’s shape', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const response = await app.inject({
    method: 'POST', url: '/v1/payments/payment', headers: { ...auth, 'content-type': 'application/json', 'content-length': '2' }, payload: '{"a":1}'
  })
  t.equal(response.statusCode, 400)
  t.equal(response.json().name, 'MALFORMED_REQUEST')
  t.notOk('statusCode' in response.json())
})

t.test('unexpected failures are 500 INTERNAL_SERVICE_ERROR', async (t) => {
  const app = simulator(t)
  app.get('/explode', async function explode () {
    throw new Error('boom')
  })
  const response = await app.inject({ url: '/explode' })
  t.equal(response.statusCode, 500)
  t.match(response.json(), { name: 'INTERNAL_SERVICE_ERROR', debug_id: /^[0-9a-f]{13}$/ })
  t.notMatch(response.body, /boom/, 'no internals leak')
})

t.test('unknown paths are 404 RESOURCE_NOT_FOUND with a debug id', async (t) => {
  const app = shared
  const response = await app.inject({ url: '/v2/checkout/orders' })
  t.equal(response.statusCode, 404)
  t.same(response.json(), {
    name: 'RESOURCE_NOT_FOUND',
    message: 'The specified resource does not exist.',
    debug_id: response.headers['paypal-debug-id'],
    information_link: 'https://developer.paypal.com/webapps/developer/docs/api/#RESOURCE_NOT_FOUND'
  })
})
