import { once } from 'node:events'
import { Agent, createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import t from 'tap'
import { bearer, paidPayment, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { call, until } from '../fixtures/wire.ts'

const CREATE = '/v1/payments/payment'
const TEN_MINUTES = 600_000

/** A webhook listener that takes requests and never answers them. */
async function silentListener (t: { teardown: (fn: () => unknown) => void }): Promise<{ url: string, received: () => number }> {
  let received = 0
  const server = createServer(() => { received++ })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received: () => received }
}

t.test('close() resolves at once with slow, held and half-sent requests, idle keep-alive sockets and stuck deliveries', async (t) => {
  // A hang fails here instead of at the suite's two-minute limit.
  t.setTimeout(30_000)
  const listener = await silentListener(t)
  const app = simulator(t, { webhookDelivery: { timeoutMs: TEN_MINUTES, maxAttempts: 5, retryDelayMs: TEN_MINUTES } })
  app.simulator.webhooks.subscribe({ url: listener.url, eventTypes: ['PAYMENT.SALE.COMPLETED'] })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const auth = { authorization: `Bearer ${app.simulator.issueAccessToken()}` }

  // An idle keep-alive connection, as an HTTP client's pool leaves behind.
  const keepAlive = new Agent({ keepAlive: true })
  t.teardown(() => keepAlive.destroy())
  const pooled = httpRequest(`${app.listeningOrigin}/v1/payments/payment`, { agent: keepAlive, headers: auth })
  pooled.end()
  const [pooledResponse] = await once(pooled, 'response') as [import('node:http').IncomingMessage]
  pooledResponse.resume()
  await once(pooledResponse, 'end')

  // A delivery stuck on a listener that never answers, and one held by pause().
  const { saleId } = await paidPayment(app, auth)
  await until(() => listener.received() === 1)
  app.simulator.webhooks.pause()
  const redelivered = app.simulator.webhooks.redeliver(app.simulator.webhooks.events().at(-1)?.id ?? '')

  // Requests delayed and held before and after their work, and one whose body never finishes.
  app.simulator.faults.inject({ kind: 'delay', method: 'GET', path: '/v1/payments/sale/*', delayMs: TEN_MINUTES })
  app.simulator.faults.inject({ kind: 'delay', method: 'POST', path: CREATE, delayMs: TEN_MINUTES, when: 'after' })
  const heldBefore = app.simulator.faults.hold({ method: 'GET', path: '/v1/payments/payment/*' })
  const heldAfter = app.simulator.faults.hold({ method: 'POST', path: '/v1/payments/sale/*/refund', when: 'after' })
  const calls = [
    call(app, 'GET', `/v1/payments/sale/${saleId}`, auth),
    call(app, 'POST', CREATE, auth, paymentRequest()),
    call(app, 'GET', '/v1/payments/payment/PAYID-UNKNOWN', auth),
    call(app, 'POST', `/v1/payments/sale/${saleId}/refund`, auth, {})
  ]
  await Promise.all([heldBefore.reached, heldAfter.reached, until(() => app.simulator.faults.remaining() === 0)])
  const halfSent = connect((app.server.address() as AddressInfo).port, '127.0.0.1')
  halfSent.on('error', () => {}).resume()
  halfSent.write(`POST ${CREATE} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{"intent"`)
  const halfSentClosed = once(halfSent, 'close')
  await until(() => app.simulator.requests().length === 8)

  await app.close()
  await halfSentClosed
  t.pass('closed')
  for (const settled of await Promise.allSettled(calls.map(async (pending) => await pending.answer))) {
    t.ok(settled.status === 'rejected' || [200, 201, 404].includes(settled.value.status), 'each call ended with its answer or a closed connection')
  }
  const [held] = await redelivered
  t.equal(held?.status, 'failed', 'a held delivery is given up, not left pending')
  t.match(app.simulator.webhooks.deliveries()[0], { status: 'failed', attempts: [{ error: String }] }, 'the stuck delivery was aborted')
  t.match(app.simulator.counters(), { paymentsCreated: 2, refunds: 1 }, 'released work was done before the connections closed')
})

t.test('close() without listening, and twice', async (t) => {
  const app = simulator(t)
  await bearer(app)
  await app.close()
  await app.close()
  t.pass('no hang')
})
