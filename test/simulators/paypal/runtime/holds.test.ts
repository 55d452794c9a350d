import t from 'tap'
import { bearer, paymentRequest, simulator } from '../fixtures/helpers.ts'
import { call, until } from '../fixtures/wire.ts'
import type { PaypalSimulator } from '../../../../simulators/paypal/index.ts'

const CREATE = '/v1/payments/payment'

async function listening (t: { teardown: (fn: () => unknown) => void }): Promise<{ app: PaypalSimulator, auth: Record<string, string> }> {
  const app = simulator(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, auth: { authorization: `Bearer ${app.simulator.issueAccessToken()}` } }
}

t.test('before: reached once the request waits, nothing done, duplicates are 409; release does the work', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'hold-1' }
  const held = app.simulator.faults.hold({ method: 'post', path: CREATE })
  t.equal(app.simulator.faults.remaining(), 1)
  const first = call(app, 'POST', CREATE, headers, paymentRequest())
  await held.reached
  t.equal(held.arrived, 1)
  t.equal(app.simulator.faults.remaining(), 0)
  t.equal(app.simulator.counters().paymentsCreated, 0, 'held before the work')
  t.equal((await call(app, 'POST', CREATE, headers, paymentRequest()).answer).status, 409)
  held.release()
  t.equal((await first.answer).status, 201)
  t.equal((await call(app, 'POST', CREATE, headers, paymentRequest()).answer).status, 200)
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1 })
})

t.test('after: reached once the work is done and stored; a retry is replayed while the first answer waits', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'hold-after-1' }
  const held = app.simulator.faults.hold({ path: CREATE, when: 'after' })
  const first = call(app, 'POST', CREATE, headers, paymentRequest())
  let answered = false
  first.answer.then(() => { answered = true }, () => {})
  await held.reached
  t.equal(app.simulator.counters().paymentsCreated, 1, 'the work is done')
  const retry = await call(app, 'POST', CREATE, headers, paymentRequest()).answer
  t.equal(retry.status, 200, 'and stored for replay')
  t.notOk(answered, 'the first answer is still held')
  held.release()
  const answer = await first.answer
  t.equal(answer.status, 201)
  t.equal(JSON.parse(answer.body).id, JSON.parse(retry.body).id)
  t.same(app.simulator.requests().map((request) => request.statusCode), [201, 200], 'the log lists requests in arrival order with their answers')
})

t.test('holds for the same requests queue in order, so a test picks who finishes first', async (t) => {
  const { app, auth } = await listening(t)
  const firstHold = app.simulator.faults.hold({ method: 'POST', path: CREATE })
  const secondHold = app.simulator.faults.hold({ method: 'POST', path: CREATE })
  const a = call(app, 'POST', CREATE, auth, paymentRequest({ note_to_payer: 'a' }))
  await firstHold.reached
  const b = call(app, 'POST', CREATE, auth, paymentRequest({ note_to_payer: 'b' }))
  await secondHold.reached
  let aAnswered = false
  a.answer.then(() => { aAnswered = true }, () => {})
  secondHold.release()
  t.equal(JSON.parse((await b.answer).body).note_to_payer, 'b')
  t.notOk(aAnswered, 'the first request is still held')
  firstHold.release()
  t.equal((await a.answer).status, 201)
  t.equal(app.simulator.counters().paymentsCreated, 2)
})

t.test('fail(): before the work nothing is done and the id is free again; after it the answer is lost', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'hold-fail-1' }
  const before = app.simulator.faults.hold({ path: CREATE })
  const refused = call(app, 'POST', CREATE, headers, paymentRequest())
  await before.reached
  before.fail(503)
  const answer = await refused.answer
  t.equal(answer.status, 503)
  t.match(JSON.parse(answer.body), { name: 'SERVICE_UNAVAILABLE', debug_id: answer.headers['paypal-debug-id'] })
  t.equal(app.simulator.counters().paymentsCreated, 0)

  const after = app.simulator.faults.hold({ path: CREATE, when: 'after' })
  const lost = call(app, 'POST', CREATE, headers, paymentRequest())
  await after.reached
  after.fail()
  const lostAnswer = await lost.answer
  t.equal(lostAnswer.status, 500, 'the id was free, the work done, the answer replaced')
  t.equal(JSON.parse(lostAnswer.body).name, 'INTERNAL_SERVICE_ERROR')
  t.equal((await call(app, 'POST', CREATE, headers, paymentRequest()).answer).status, 200, 'the stored work is replayed')

  const limited = app.simulator.faults.hold({ path: CREATE })
  limited.fail(429)
  const answer429 = await call(app, 'POST', CREATE, auth, paymentRequest()).answer
  t.equal(answer429.status, 429, 'a verdict given before the request arrives applies when it does')
  t.equal(JSON.parse(answer429.body).name, 'RATE_LIMIT_REACHED')
  await limited.reached
  t.match(app.simulator.counters(), { paymentsCreated: 1, idempotentReplays: 1 })
})

t.test('reset(): the connection drops without an answer; before, nothing is done; after, the work is kept', async (t) => {
  const { app, auth } = await listening(t)
  const headers = { ...auth, 'paypal-request-id': 'hold-reset-1' }
  const before = app.simulator.faults.hold({ path: CREATE })
  const dropped = call(app, 'POST', CREATE, headers, paymentRequest())
  await before.reached
  before.reset()
  await t.rejects(dropped.answer, { code: 'ECONNRESET' })
  t.equal(app.simulator.counters().paymentsCreated, 0)

  const after = app.simulator.faults.hold({ path: CREATE, when: 'after' })
  const droppedAfterWork = call(app, 'POST', CREATE, headers, paymentRequest())
  await after.reached
  after.reset()
  await t.rejects(droppedAfterWork.answer, { code: 'ECONNRESET' })
  t.equal(app.simulator.counters().paymentsCreated, 1)
  t.equal((await call(app, 'POST', CREATE, headers, paymentRequest()).answer).status, 200)
  t.same(app.simulator.requests().map((request) => request.statusCode), [undefined, undefined, 200], 'reset requests have no status')
})

t.test('under inject: reset rejects the injected request', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  for (const when of ['before', 'after'] as const) {
    const held = app.simulator.faults.hold({ path: CREATE, when })
    const injected = app.inject({ method: 'POST', url: CREATE, headers: auth, payload: paymentRequest() })
    await held.reached
    held.reset()
    await t.rejects(injected, { code: 'LIGHT_ECONNRESET' }, when)
  }
  t.equal(app.simulator.counters().paymentsCreated, 1)
})

t.test('times: reached when all have arrived; one verdict ends them all, later ones included', async (t) => {
  const { app, auth } = await listening(t)
  const held = app.simulator.faults.hold({ method: 'GET', path: '/v1/payments/payment', times: 3 })
  const first = call(app, 'GET', CREATE, auth)
  const second = call(app, 'GET', CREATE, auth)
  await until(() => held.arrived === 2)
  held.release()
  t.same([(await first.answer).status, (await second.answer).status], [200, 200])
  t.equal(app.simulator.faults.remaining(), 1)
  t.equal((await call(app, 'GET', CREATE, auth).answer).status, 200, 'the third goes straight through')
  await held.reached
  t.equal(app.simulator.faults.remaining(), 0)
})

t.test('misuse is refused', async (t) => {
  const app = simulator(t)
  const held = app.simulator.faults.hold({ path: CREATE })
  t.throws(() => held.fail(404 as 500), { name: 'TypeError', message: /429, 500 or 503/ })
  held.release()
  t.throws(() => held.release(), /already ended with release\(\)/)
  t.throws(() => held.reset(), /already ended/)
  t.throws(() => app.simulator.faults.hold({ path: CREATE, times: 0 }), /positive integer/)
})

t.test('clear() disarms a hold not reached yet; requests then pass', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const held = app.simulator.faults.hold({ path: CREATE })
  app.simulator.faults.clear()
  t.equal(app.simulator.faults.remaining(), 0)
  t.equal((await app.inject({ method: 'POST', url: CREATE, headers: auth, payload: paymentRequest() })).statusCode, 201)
  t.equal(held.arrived, 0)
})

t.test('closing releases held requests and fails `reached` of holds never reached', async (t) => {
  const { app, auth } = await listening(t)
  const held = app.simulator.faults.hold({ method: 'POST', path: CREATE })
  const afterwards = app.simulator.faults.hold({ method: 'POST', path: CREATE, when: 'after' })
  const never = app.simulator.faults.hold({ method: 'DELETE', path: '/nothing' })
  const waiting = call(app, 'POST', CREATE, auth, paymentRequest())
  await held.reached
  await app.close()
  t.equal(app.simulator.counters().paymentsCreated, 1, 'the held request went on and did its work')
  await afterwards.reached
  t.equal(afterwards.arrived, 1, 'a hold reached while closing does not stop the request')
  const settled = await waiting.answer.then((answer) => answer.status, () => 'reset')
  t.ok(settled === 201 || settled === 'reset', 'its client got the answer, or the connection closed under it')
  await t.rejects(never.reached, /closed before the held requests arrived/)
  held.release()
  t.pass('ending a hold after close is harmless')
  const late = app.simulator.faults.hold({ path: CREATE })
  await t.rejects(late.reached, /closed/, 'a hold armed after close fails at once')
})
