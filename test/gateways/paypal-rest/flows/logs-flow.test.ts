/*
 * What Paywire logs during a whole PayPal payment: provider calls at debug, executed
 * actions at trace, retries at warn, to request.log under Fastify (with the request id) and
 * to the logger given with addGlobalService otherwise; never a secret or payer data.
 */
import t from 'tap'
import { Logger } from '../../../../plugins/core/index.ts'
import { captureLog } from '../../../helpers/log-capture.ts'
import { approveAndReturn, engineSetup, preparePayment } from '../fixtures/paywire.ts'
import { ScriptedHttpClient } from '../fixtures/recorders.ts'
import { pay, startShop } from '../fixtures/shop.ts'

interface Line { level: string, fields: Record<string, any>, message: string | undefined }

/** A custom logger, as an application writes one: the Logger interface, trace included. */
class ArrayLogger extends Logger {
  readonly lines: Line[] = []
  #line = (level: string) => (fields: unknown, message?: string) => { this.lines.push({ level, fields: fields as Record<string, any>, message }) }
  override trace = this.#line('trace')
  debug = this.#line('debug')
  info = this.#line('info')
  warn = this.#line('warn')
  error = this.#line('error')
}

function bearerTokens (http: ScriptedHttpClient): string[] {
  return [...new Set(http.requests.flatMap((request) => /^Bearer (.+)$/.exec(request.headers?.authorization ?? '')?.[1] ?? []))]
}

t.test('under Fastify, a PayPal payment logs to request.log: calls at debug, actions at trace, each with its request id', async (t) => {
  const log = captureLog()
  const http = new ScriptedHttpClient()
  t.teardown(() => http.close())
  const shop = await startShop(t, { http, fastify: { logger: { level: 'trace', stream: log.stream } } })
  const { done, captureUrl } = await pay(shop, { number: 'LOGS-1', description: 'Secret mug description' })
  t.equal(done.status, 'captured')

  const records = log.records()
  const calls = records.filter((record) => record.msg === 'paywire: PayPal call')
  t.ok(calls.every((record) => record.level === 20), 'provider calls are debug lines')
  const paths = calls.map((record) => (record.provider as { path: string }).path)
  t.ok(paths.includes('/v1/payments/payment'), 'the payment was created')
  const execute = calls.find((record) => /\/execute$/.test((record.provider as { path: string }).path))
  t.match(execute, { provider: { name: 'PayPal', method: 'POST', status: 200, debugId: /^[0-9a-f]{13}$/, attempt: 1, ms: Number }, reqId: String })

  // The execute call belongs to the buyer's return to the capture URL: same request id.
  const incoming = records.find((record) => record.msg === 'incoming request' && record.reqId === execute?.reqId)
  t.match((incoming?.req as { url: string } | undefined)?.url, /^\/payment\/capture\/[A-Za-z0-9_-]{6}…\?/, 'the line carries the id of the request that made the call')

  const actions = records.filter((record) => record.msg === 'paywire: action executed')
  t.ok(actions.length > 0 && actions.every((record) => record.level === 10 && typeof record.reqId === 'string'), 'executed actions are trace lines with the request id')
  t.ok(actions.some((record) => (record.paywire as { gateway: string, action: string }).action === 'CaptureAction' && (record.paywire as { gateway: string }).gateway === 'paypal'))

  const text = log.text()
  const tokenHash = new URL(captureUrl).pathname.split('/').pop() as string
  for (const secret of [shop.client.clientSecret, ...bearerTokens(http), tokenHash, 'Secret mug description', 'grant_type']) {
    t.notMatch(text, secret, `${secret.slice(0, 8)}… is not logged`)
  }
  t.notMatch(text, /PayerID=(?!\*)/, 'the payer id is masked')
})

t.test('without Fastify, the logger given with addGlobalService gets the lines, and retries at warn', async (t) => {
  const logger = new ArrayLogger()
  const setup = await engineSetup(t, { config: { 'log.LogEnabled': false }, logger })
  const prepared = await preparePayment(setup.paywire)
  // PayPal answers the first try of the execute call with a 503: the call is safe to repeat.
  setup.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: '/v1/payments/payment/*/execute', times: 1 })
  await approveAndReturn(setup, prepared)

  const calls = logger.lines.filter((line) => line.message === 'paywire: PayPal call')
  t.ok(calls.length >= 3 && calls.every((line) => line.level === 'debug'))
  t.same(calls.filter((line) => /\/execute$/.test(line.fields.provider.path)).map((line) => [line.fields.provider.status, line.fields.provider.attempt]), [[503, 1], [200, 2]])
  t.match(logger.lines.filter((line) => line.level === 'warn'), [{ message: 'paywire: PayPal call left its outcome open; trying again', fields: { paypal: { gateway: 'paypal', attempt: 1, status: 503 } } }])
  const actions = logger.lines.filter((line) => line.message === 'paywire: action executed')
  t.ok(actions.length > 0 && actions.every((line) => line.level === 'trace'))
  t.match(actions.find((line) => line.fields.paywire.action === 'CaptureAction'), { fields: { paywire: { gateway: 'paypal', depth: Number, outcome: String } } })

  const text = JSON.stringify(logger.lines)
  for (const secret of [setup.client.clientSecret, ...bearerTokens(setup.http), prepared.token.hash]) t.notMatch(text, secret)
})
