/*
 * The demo's request lines (demo/request-log.ts): one per request, saying what happened in the
 * shop's terms, on the paths the walk does not take.
 */
import t from 'tap'
import { request } from 'undici'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { buildDemoShop } from '../../app.ts'
import { DemoLogController } from '../../demo/request-log.ts'
import { captureLog } from '../helpers/log-capture.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

const CREATE = 'mutation ($input: CreatePaymentInput!) { createPayment(input: $input) { ... on PaymentCreated { captureUrl } } }'

t.test('GraphQL, a return to the shop\'s own page, a refused link, a failure', async (t) => {
  const log = captureLog()
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false, logger: { level: 'info', stream: log.stream } })
  t.teardown(() => app.close())
  app.get('/boom', async () => { throw new Error('boom') })
  const created = await app.inject({ method: 'POST', url: '/graphql', payload: { query: CREATE, variables: { input: { gateway: 'offline', totalAmount: 500, currencyCode: 'EUR', afterUrl: 'https://shop.example/thanks' } } } })
  const capture = await app.inject({ url: new URL(created.json().data.createPayment.captureUrl).pathname })
  t.match(capture.headers.location, /^https:\/\/shop\.example\/thanks\?paywire_token=/)
  await app.inject({ url: '/payment/capture/not-a-token' })
  await app.inject({ url: '/boom' })
  const steps = log.records().filter((record) => record.reqId !== undefined).map((record) => [record.level, record.msg])
  t.same(steps, [
    [30, 'graphql: answered (200)'],
    [30, 'capture: buyer sent to the shop'],
    [30, 'capture: refused (400)'],
    [50, 'demo shop: request failed'],
    [30, 'GET /boom: failed (500)']
  ])
  t.match(log.records().find((record) => record.msg === 'capture: buyer sent to the shop'), { step: 'capture', statusCode: 302, ms: Number })
})

t.test('a return opened twice at once: the second waits, and says so', async (t) => {
  const log = captureLog()
  const app = await buildDemoShop({ rateLimits: false, logger: { level: 'info', stream: log.stream } })
  t.teardown(() => app.close())
  const origin = await app.listen({ port: 0, host: '127.0.0.1' })
  const simulator = app.paypalSimulator?.simulator
  t.teardown(() => simulator?.webhooks.waitForIdle())
  const checkout = await request(`${origin}/checkout`, { method: 'POST', body: 'amount=5&currency=EUR&gateway=paypal', headers: FORM })
  await checkout.body.dump()
  const toPaypal = await request(String(checkout.headers.location))
  await toPaypal.body.dump()
  const approvalUrl = new URL(String(toPaypal.headers.location))
  const token = /name="token" value="([^"]+)"/.exec(await (await request(approvalUrl)).body.text())?.[1] ?? ''
  const approved = await request(new URL('/cgi-bin/webscr', approvalUrl), { method: 'POST', body: `cmd=_express-checkout&token=${token}&decision=approve`, headers: FORM })
  await approved.body.dump()
  const held = simulator?.faults.hold({ method: 'POST', path: '/v1/payments/payment/*/execute' })
  const first = request(String(approved.headers.location))
  await held?.reached
  const second = await request(String(approved.headers.location), { headers: { accept: 'text/html' } })
  await second.body.dump()
  t.equal(second.statusCode, 409)
  held?.release()
  await (await first).body.dump()
  t.ok(log.records().some((record) => record.msg === 'capture: payment busy, the buyer waits' && record.statusCode === 409))
})

t.test('a reply that failed to send keeps Fastify\'s own error line', async (t) => {
  const lines: Array<[string, unknown, string]> = []
  const logger = (level: string) => (fields: unknown, message: string) => { lines.push([level, fields, message]) }
  const reply = { log: { error: logger('error'), info: logger('info') }, elapsedTime: 3, statusCode: 500 } as unknown as FastifyReply
  const error = new Error('socket hang up')
  new DemoLogController().requestCompleted(error, {} as FastifyRequest, reply)
  t.match(lines, [['error', { err: error }, 'request errored']])
})

t.test('a malformed BASE_URL is refused by the paywire plugin, by name', async (t) => {
  await t.rejects(buildDemoShop({ baseUrl: 'shop.example', paypal: false }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /baseUrl/ })
})
