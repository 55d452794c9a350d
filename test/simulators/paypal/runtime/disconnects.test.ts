import t from 'tap'
import { paymentRequest, simulator } from '../fixtures/helpers.ts'
import { call, until } from '../fixtures/wire.ts'
import type { PaypalSimulator } from '../../../../simulators/paypal/index.ts'

const CREATE = '/v1/payments/payment'

async function listening (t: { teardown: (fn: () => unknown) => void }): Promise<{ app: PaypalSimulator, auth: Record<string, string> }> {
  const app = simulator(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, auth: { authorization: `Bearer ${app.simulator.issueAccessToken()}` } }
}

/** The status the simulator answered the n-th logged request matching, once it has answered. */
async function answeredStatus (app: PaypalSimulator, index: number): Promise<number | undefined> {
  await until(() => app.simulator.requests()[index]?.statusCode !== undefined)
  return app.simulator.requests()[index]?.statusCode
}

// The bug: a replayed answer slowed down in the onSend hooks, its client gone, also ran the handler.
t.test('a replay whose client disconnects while its answer is delayed never runs the handler', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'replay-1' }
  const first = await call(app, 'POST', CREATE, headers, paymentRequest()).answer
  t.equal(first.status, 201)

  app.simulator.faults.inject({ kind: 'delay', method: 'POST', path: CREATE, delayMs: 600_000, when: 'after' })
  const replay = call(app, 'POST', CREATE, headers, paymentRequest())
  await until(() => app.simulator.faults.remaining() === 0)
  replay.abort()
  await replay.serverSideClosed
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1 }, 'no phantom payment once the client is gone')
  await t.rejects(replay.answer)

  await app.close()
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1, requestsReceived: 2 }, 'nor when close() cuts the delay short')
})

t.test('a held replay of execute, client gone: executed once, one webhook event, the id still replays', async (t) => {
  const { app, auth } = await listening(t)
  const created = JSON.parse((await call(app, 'POST', CREATE, auth, paymentRequest()).answer).body) as { id: string }
  const { payerId } = app.simulator.approve(created.id)
  const execute = `/v1/payments/payment/${created.id}/execute`
  const headers = { ...auth, 'paypal-request-id': 'execute-1' }
  t.equal((await call(app, 'POST', execute, headers, { payer_id: payerId }).answer).status, 200)
  const before = app.simulator.counters()

  const held = app.simulator.faults.hold({ method: 'POST', path: '/v1/payments/payment/*/execute', when: 'after' })
  const replay = call(app, 'POST', execute, headers, { payer_id: payerId })
  await held.reached
  replay.abort()
  await replay.serverSideClosed
  held.release()
  await t.rejects(replay.answer)
  t.equal(await answeredStatus(app, 2), 200, 'the simulator answered the replay into the closed connection')

  const again = await call(app, 'POST', execute, headers, { payer_id: payerId }).answer
  t.equal(again.status, 200)
  t.equal(JSON.parse(again.body).state, 'approved')
  t.same(app.simulator.counters(), {
    ...before, idempotentReplays: before.idempotentReplays + 2, requestsReceived: before.requestsReceived + 2
  }, 'only the two replays and their requests were counted')
  t.equal(app.simulator.counters().paymentsExecuted, 1)
  t.equal(app.simulator.webhooks.events().filter((event) => event.event_type === 'PAYMENT.SALE.COMPLETED').length, 1)
})

t.test('an in-flight call whose client disconnects still completes, and its outcome is replayed like PayPal', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'in-flight-1' }
  const held = app.simulator.faults.hold({ method: 'POST', path: CREATE })
  const first = call(app, 'POST', CREATE, headers, paymentRequest())
  await held.reached
  first.abort()
  await first.serverSideClosed
  t.equal(app.simulator.counters().paymentsCreated, 0, 'held before the work')

  const duplicate = await call(app, 'POST', CREATE, headers, paymentRequest()).answer
  t.equal(duplicate.status, 409, 'still in flight for PayPal, although its client left')
  held.release()
  t.equal(await answeredStatus(app, 0), 201, 'the work was done and answered into the closed connection')
  await t.rejects(first.answer)

  const retry = await call(app, 'POST', CREATE, headers, paymentRequest()).answer
  t.equal(retry.status, 200, 'the stored outcome is replayed')
  const payment = JSON.parse(retry.body) as { id: string }
  t.equal(app.simulator.payment(payment.id)?.state, 'created')
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1 })
})

t.test('an in-flight call slowed by a delay, client gone: done once when the delay ends', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'delayed-1' }
  app.simulator.faults.inject({ kind: 'delay', method: 'POST', path: CREATE, delayMs: 50 })
  const first = call(app, 'POST', CREATE, headers, paymentRequest())
  await until(() => app.simulator.faults.remaining() === 0)
  first.abort()
  await first.serverSideClosed
  t.equal(await answeredStatus(app, 0), 201)
  await t.rejects(first.answer)
  t.equal((await call(app, 'POST', CREATE, headers, paymentRequest()).answer).status, 200)
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1 })
})

t.test('a before-fault answer delayed by an after rule, client gone: the handler never runs', async (t) => {
  const { app, auth } = await listening(t)
  app.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: CREATE })
  const held = app.simulator.faults.hold({ method: 'POST', path: CREATE, when: 'after' })
  const faulted = call(app, 'POST', CREATE, auth, paymentRequest())
  t.equal((await faulted.answer).status, 503, 'a request stopped by a fault takes no after rule')
  t.equal(held.arrived, 0)
  t.equal(app.simulator.counters().paymentsCreated, 0)
  held.release()
})
