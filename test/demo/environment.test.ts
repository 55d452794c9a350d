/*
 * npm start's settings (demo/environment.ts): a bad value is refused with one line naming the
 * variable and what to put there.
 */
import t from 'tap'
import { DemoConfigError, readEnvironment } from '../../demo/environment.ts'
import { startupMessage } from '../../demo/start.ts'
import { envWith } from '../helpers/child-process.ts'

t.test('npm start explains what to change when it cannot start', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT=abc is not a port number/],
    [{ PORT: '70000' }, /^PORT=70000 is not a port number/],
    [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL=verbose is not a log level: use one of fatal, error/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL must start with redis:\/\/ or rediss:\/\/ .*not http:/],
    [{ PAYPAL_CLIENT_ID: 'id' }, /^PAYPAL_CLIENT_ID is set without PAYPAL_CLIENT_SECRET/],
    [{ PAYPAL_CLIENT_SECRET: 'canary-secret' }, /^PAYPAL_CLIENT_SECRET is set without PAYPAL_CLIENT_ID/]
  ]
  for (const [variables, message] of cases) {
    process.env = envWith(variables, ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET'].filter((name) => !(name in variables)))
    const error = (() => { try { readEnvironment(); return null } catch (error) { return error } })()
    t.ok(error instanceof DemoConfigError, JSON.stringify(variables))
    t.match(startupMessage(error), message)
    t.notMatch(startupMessage(error), 'canary-secret')
  }
})

t.test('a DATABASE_URL that is not PostgreSQL\'s is refused by name', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  process.env = envWith({ DATABASE_URL: 'mysql://shop@127.0.0.1/shop' }, ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET'])
  t.throws(() => readEnvironment(), { name: 'DemoConfigError', message: /^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/ .*not mysql:\.$/ })
})

t.test('every setting read, empty ones as unset; PayPal credentials replace the simulator', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  const settings = [
    ['PORT', '0'], ['HOST', '0.0.0.0'], ['LOG_LEVEL', 'warn'], ['REDIS_URL', ''], ['DATABASE_URL', 'postgresql://shop@127.0.0.1/shop'], ['DATABASE_SCHEMA', 'shop'],
    ['BASE_URL', 'https://shop.example'], ['PAYPAL_CLIENT_ID', 'id'], ['PAYPAL_CLIENT_SECRET', 'secret'], ['PAYPAL_MODE', 'live'], ['PAYPAL_WEBHOOK_ID', 'WH-1'], ['PAYPAL_CHECKOUT_WEBHOOK_ID', 'WH-2']
  ]
  process.env = envWith(Object.fromEntries(settings))
  t.same(readEnvironment(), {
    port: 0,
    host: '0.0.0.0',
    logLevel: 'warn',
    redisUrl: undefined,
    databaseUrl: 'postgresql://shop@127.0.0.1/shop',
    databaseSchema: 'shop',
    baseUrl: 'https://shop.example',
    paypal: { clientId: 'id', clientSecret: 'secret', mode: 'live', webhookId: 'WH-1', checkoutWebhookId: 'WH-2' }
  })
  process.env.PAYPAL_MODE = 'sandbox-ish'
  t.match(readEnvironment().paypal, { mode: 'sandbox' }, 'anything but live is the sandbox')
})
