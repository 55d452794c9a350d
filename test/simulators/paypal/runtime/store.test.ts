import t from 'tap'
import { buildPaypalSimulator, DEFAULT_SIMULATOR_CLIENT } from '../../../../simulators/paypal/index.ts'
import { paypalTime } from '../../../../simulators/paypal/runtime/store.ts'
import { grantToken, simulator } from '../fixtures/helpers.ts'

t.test('works out of the box with the default fake client', async (t) => {
  const app = buildPaypalSimulator()
  t.teardown(() => app.close())
  t.same(DEFAULT_SIMULATOR_CLIENT, { clientId: 'sim-client', clientSecret: 'sim-secret' })
  t.equal((await grantToken(app, DEFAULT_SIMULATOR_CLIENT)).statusCode, 200)
  t.equal(app.simulator.baseUrl(), 'http://localhost', 'no request, not listening')
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.equal(app.simulator.baseUrl(), app.listeningOrigin)
})

t.test('options are checked when the simulator is built', async (t) => {
  const bad: Array<[Parameters<typeof buildPaypalSimulator>[0], RegExp]> = [
    [{ clients: [] }, /"clients" must not be empty/],
    [{ clients: [{ clientId: '', clientSecret: 'x' }] }, /non-empty clientId and clientSecret/],
    [{ clients: [{ clientId: 'x', clientSecret: '' }] }, /non-empty clientId and clientSecret/],
    [{ accessTokenTtlSeconds: 0 }, /"accessTokenTtlSeconds" must be a positive integer, got 0/],
    [{ paymentTtlSeconds: 1.5 }, /"paymentTtlSeconds"/],
    [{ idempotencyRetentionSeconds: -1 }, /"idempotencyRetentionSeconds"/],
    [{ webhookDelivery: { maxAttempts: 0 } }, /"webhookDelivery.maxAttempts"/],
    [{ webhookDelivery: { retryDelayMs: -5 } }, /"webhookDelivery.retryDelayMs"/],
    [{ webhookDelivery: { timeoutMs: 0 } }, /"webhookDelivery.timeoutMs"/],
    [{ publicUrl: 'not a url' }, /"publicUrl" is not a URL/],
    [{ webhooks: [{ url: 'https://x.test', clientId: 'ghost' }] }, /unknown client ghost/]
  ]
  for (const [options, message] of bad) t.throws(() => buildPaypalSimulator(options), message)
  t.doesNotThrow(() => simulator(t, { webhookDelivery: { retryDelayMs: 0 } }))
})

t.test('addClient accepts new credentials at run time', async (t) => {
  const app = simulator(t)
  const late = { clientId: 'late-client', clientSecret: 'late-secret' }
  t.equal((await grantToken(app, late)).statusCode, 401)
  app.simulator.addClient(late)
  t.equal((await grantToken(app, late)).statusCode, 200)
  t.throws(() => app.simulator.addClient({ clientId: 'x', clientSecret: '' }), TypeError)
})

t.test('simulators keep separate state', async (t) => {
  const first = simulator(t)
  const second = simulator(t)
  const token = first.simulator.issueAccessToken()
  const response = await second.inject({ url: '/v1/payments/payment', headers: { authorization: `Bearer ${token}` } })
  t.equal(response.statusCode, 401)
  t.equal(paypalTime(Date.UTC(2024, 1, 3, 4, 5, 6, 789)), '2024-02-03T04:05:06Z')
})
