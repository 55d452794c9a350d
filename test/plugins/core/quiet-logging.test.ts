/*
 * Logging that is off costs nothing: with Fastify's default `logger: false`, or a logger whose
 * level leaves trace and debug out, a payment flow builds and redacts no line of those levels
 * (the engine asks the logger before it builds one). An application logging at trace keeps them.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { Payment, paywire, paywireLogger, runWithHttpRequest, type HttpRequestData } from '../../../plugins/core/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const

/** One offline payment, captured and finished over the payment routes; the status codes. */
async function payOffline (app: FastifyInstance, number: string): Promise<number[]> {
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number, totalAmount: 100, currencyCode: 'EUR', clientEmail: 'payer@example.com' })
  await storage.update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  const capture = await app.inject({ url: new URL(token.targetUrl).pathname })
  const done = await app.inject({ url: new URL(token.afterUrl as string).pathname })
  return [capture.statusCode, done.statusCode]
}

async function shop (t: Test, options: FastifyServerOptions): Promise<FastifyInstance> {
  const app = Fastify(options)
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  return app
}

/**
 * A pino-shaped logger for Fastify's `loggerInstance` that records every call by level, and
 * says which levels it keeps only through `level` or `isLevelEnabled`, as given.
 */
function recordingLogger (keeps: { level?: string, isLevelEnabled?: (level: string) => boolean }) {
  const calls: Record<string, number> = {}
  const asked: string[] = []
  const logger: Record<string, unknown> = {}
  for (const level of LEVELS) logger[level] = () => { calls[level] = (calls[level] ?? 0) + 1 }
  logger.child = () => logger
  if (keeps.level !== undefined) logger.level = keeps.level
  const isLevelEnabled = keeps.isLevelEnabled
  if (isLevelEnabled !== undefined) logger.isLevelEnabled = (level: string) => { asked.push(level); return isLevelEnabled(level) }
  return { logger: logger as unknown as FastifyBaseLogger, calls, asked }
}

function served (log: object): HttpRequestData {
  return { method: 'GET', uri: '/', query: {}, request: {}, content: '', headers: {}, clientIp: '127.0.0.1', userAgent: 'test', log }
}

t.test('with Fastify\'s default logger: false, Paywire\'s logger reports every level off, in and out of a request', async (t) => {
  const app = await shop(t, {})
  t.same(await payOffline(app, 'QUIET-1'), [302, 200], 'the flow works without a logger')
  // The logger the core plugin gives the engine: the one the executed-action trace asks.
  const logger = paywireLogger(app.log, { followRequests: true })
  for (const level of LEVELS) t.equal(logger.isLevelEnabled?.(level), false, `${level} is off`)
  await runWithHttpRequest(served(app.log.child({})), async () => {
    for (const level of LEVELS) t.equal(logger.isLevelEnabled?.(level), false, `${level} is off for the request's logger`)
  })
})

t.test('a logger whose level is info gets no trace or debug call from a payment flow; info lines still come', async (t) => {
  const recorder = recordingLogger({ level: 'info' })
  const app = await shop(t, { loggerInstance: recorder.logger })
  t.same(await payOffline(app, 'QUIET-2'), [302, 200])
  t.equal(recorder.calls.trace, undefined, 'no trace line built')
  t.equal(recorder.calls.debug, undefined, 'no debug line built')
  t.ok((recorder.calls.info ?? 0) > 0, 'Fastify\'s request lines at info are written')
})

t.test('a logger whose level is silent gets no trace or debug call from a payment flow', async (t) => {
  const recorder = recordingLogger({ level: 'silent' })
  const app = await shop(t, { loggerInstance: recorder.logger })
  t.same(await payOffline(app, 'QUIET-3'), [302, 200])
  t.equal(recorder.calls.trace, undefined)
  t.equal(recorder.calls.debug, undefined)
})

t.test('a logger whose isLevelEnabled leaves out trace and debug is asked, and never called at those levels', async (t) => {
  const recorder = recordingLogger({ isLevelEnabled: (level) => level !== 'trace' && level !== 'debug' })
  const app = await shop(t, { loggerInstance: recorder.logger })
  t.same(await payOffline(app, 'QUIET-4'), [302, 200])
  t.ok(recorder.asked.includes('trace'), 'the engine asks before it builds the executed-action line')
  t.equal(recorder.calls.trace, undefined)
  t.equal(recorder.calls.debug, undefined)
})

t.test('pino at info writes no trace or debug line; at trace the executed actions are logged as before', async (t) => {
  const quiet = captureLog()
  const app = await shop(t, { logger: { level: 'info', stream: quiet.stream } })
  t.same(await payOffline(app, 'QUIET-5'), [302, 200])
  t.ok(quiet.records().length > 0)
  t.same(quiet.records().filter((record) => (record.level as number) < 30), [], 'nothing below info')
  t.notOk(paywireLogger(app.log, { followRequests: true }).isLevelEnabled?.('trace'))

  const verbose = captureLog()
  const loud = await shop(t, { logger: { level: 'trace', stream: verbose.stream } })
  t.same(await payOffline(loud, 'QUIET-6'), [302, 200])
  const executed = verbose.records().filter((record) => record.msg === 'paywire: action executed')
  t.ok(executed.length > 0, 'an application logging at trace still gets the executed actions')
  t.ok(executed.every((record) => record.level === 10))
})
