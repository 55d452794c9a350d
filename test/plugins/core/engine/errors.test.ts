import t from 'tap'
import { errorCodes, providerError } from '../../../../plugins/core/engine/index.ts'

t.test('every error is a coded Error whose code is its export name', async (t) => {
  const entries = Object.entries(errorCodes).filter(([name]) => name.startsWith('PAYWIRE_ERR_'))
  t.ok(entries.length > 30)
  for (const [name, ErrorClass] of entries) {
    const error = new (ErrorClass as new (...args: unknown[]) => Error & { code: string, statusCode: number })('a', 'b', 'c')
    t.ok(error instanceof Error, name)
    t.equal(error.code, name)
    t.ok(error.statusCode >= 400 && error.statusCode < 600, `${name} has an HTTP status`)
  }
})

t.test('caller mistakes are 4xx, misconfiguration 5xx', async (t) => {
  t.equal(new errorCodes.PAYWIRE_ERR_INVALID_AMOUNT('x').statusCode, 400)
  t.equal(new errorCodes.PAYWIRE_ERR_TOKEN_NOT_FOUND().statusCode, 404)
  t.equal(new errorCodes.PAYWIRE_ERR_PAYMENT_BUSY().statusCode, 409)
  t.equal(new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('Redis').statusCode, 503)
  t.equal(new errorCodes.PAYWIRE_ERR_SERVICE_NOT_FOUND('a', '', '').statusCode, 500)
})

t.test('providerError() keeps the provider, its code and debug id, and the cause', async (t) => {
  const cause = new Error('HTTP 422')
  const error = providerError({ provider: 'PayPal', providerCode: 'INSTRUMENT_DECLINED', message: 'The instrument was declined', debugId: 'dbg-1', cause })
  t.match(error, {
    code: 'PAYWIRE_ERR_PROVIDER',
    statusCode: 502,
    message: 'PayPal refused the request: The instrument was declined (INSTRUMENT_DECLINED).',
    provider: 'PayPal',
    providerCode: 'INSTRUMENT_DECLINED',
    debugId: 'dbg-1'
  })
  t.equal(error.cause, cause)
  t.equal(providerError({ provider: 'Acme', providerCode: 'X', message: 'no' }).debugId, undefined)
})
