/*
 * What Paywire logs: token hashes only as a prefix, secrets never, and the application's
 * own logger left as it was.
 */
import { inspect } from 'node:util'
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import {
  Logger, Payment, RedactingLogger, paywire, paywireLogSerializers, paywireLogger, redactText, redactedError, serializeError, stripCommandArguments
} from '../../../plugins/core/index.ts'
import { captureLog } from '../../helpers/log-capture.ts'

t.test('the payment routes\' request logs carry a token prefix, never the token', async (t) => {
  const log = captureLog()
  const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
  t.teardown(() => app.close())
  await app.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  app.get('/orders/:id', async () => 'ok')
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'LOG-1', totalAmount: 100, currencyCode: 'EUR', clientEmail: 'payer@example.com' })
  await storage.update(payment)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  const capture = await app.inject({ url: `${new URL(token.targetUrl).pathname}?PayerID=PAYER42&token=EC-SECRET1&paymentId=PAY-1` })
  t.equal(capture.statusCode, 302)
  await app.inject({ url: new URL(token.afterUrl as string).pathname })
  await app.inject({ url: '/orders/ORDER-42?verbose=1' })

  const text = log.text()
  for (const secret of [token.hash, (token.afterUrl as string).split('/').pop() as string, 'PAYER42', 'EC-SECRET1', 'payer@example.com']) {
    t.notMatch(text, secret, `${secret.slice(0, 6)}… is not logged`)
  }
  const urls = log.records().filter((record) => record.msg === 'incoming request').map((record) => (record.req as { url: string }).url)
  t.same(urls, [
    `/payment/capture/${token.hash.slice(0, 6)}…?PayerID=***&token=***&paymentId=PAY-1`,
    `/payment/done/${(token.afterUrl as string).split('/').pop()?.slice(0, 6) as string}…`,
    '/orders/ORDER-42?verbose=1'
  ], 'the application\'s own routes log as they always did')
})

t.test('redactText masks URL credentials, secret query values and token paths', async (t) => {
  t.equal(redactText('redis://:pw@host:6379/0 and rediss://user:p%40ss@h'), 'redis://:***@host:6379/0 and rediss://user:***@h')
  t.equal(redactText('https://shop.example/payment/done/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG?x=1'), 'https://shop.example/payment/done/abcdef…?x=1')
  t.equal(redactText('/thanks?paywire_token=abc&password=x&ok=1'), '/thanks?paywire_token=***&password=***&ok=1')
  t.equal(redactText('/payment/capture/short'), '/payment/capture/short', 'not a token')
  t.equal(redactText(''), '')
})

t.test('errors are copied without what libraries attach: command arguments, options, secret keys', async (t) => {
  const cause = Object.assign(new Error('WRONGPASS for redis://:hunter2@db'), { command: { name: 'auth', args: ['hunter2'] } })
  const error = Object.assign(new TypeError('failed', { cause }), {
    code: 'E_X',
    statusCode: 503,
    password: 'hunter2',
    options: { password: 'hunter2' },
    details: { client_secret: 'hunter2', kept: 'yes', url: 'https://u:hunter2@x/' },
    previousErrors: [Object.assign(new Error('EXECABORT'), { command: { name: 'set', args: ['k', '{"email":"a@b"}'] } })]
  })
  const copy = redactedError(error)
  t.notMatch(inspect(copy, { depth: Infinity }), 'hunter2')
  t.notMatch(inspect(copy, { depth: Infinity }), 'a@b')
  t.match(copy, { name: 'TypeError', message: 'failed', code: 'E_X', statusCode: 503, password: '[redacted]', details: { client_secret: '[redacted]', kept: 'yes' } })
  t.match(copy.cause, { message: 'WRONGPASS for redis://:***@db', command: { name: 'auth' } })
  const serialized = serializeError(error)
  t.match(serialized, { type: 'TypeError', message: 'failed', cause: { type: 'Error', command: { name: 'auth' } }, previousErrors: [{ message: 'EXECABORT', command: { name: 'set' } }] })
  t.notMatch(JSON.stringify(serialized), /hunter2|a@b/)
  t.equal(redactedError('a string thrown').message, 'a string thrown')
  t.same(serializeError({ message: 'plain', stack: 'at x' }), { type: 'Error', message: 'plain', stack: 'at x' })

  const thrown = Object.assign(new Error('OOM'), { command: { name: 'evalsha', args: ['{"clientEmail":"a@b"}'] } })
  t.equal(stripCommandArguments(thrown), thrown, 'in place, for errors that travel on')
  t.same(thrown.command, { name: 'evalsha' })
  t.equal(stripCommandArguments(null), null)
})

t.test('the redacting logger redacts messages and objects, and leaves the application\'s logger as it was', async (t) => {
  const log = captureLog()
  const app = Fastify({ logger: { level: 'trace', stream: log.stream } })
  t.teardown(() => app.close())
  const before = app.log
  const logger = paywireLogger(app.log)
  t.equal(paywireLogger(logger), logger, 'not wrapped twice')
  t.ok(logger instanceof Logger)
  logger.debug('[Paywire] Capture throws reply HttpRedirect{url: https://x/payment/done/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG}')
  logger.info({ paypal: { url: 'https://u:pw1@x/', client_secret: 'pw2', nested: [{ authorization: 'Bearer pw3' }] } }, 'call to https://a:pw4@b')
  logger.error(Object.assign(new Error('boom'), { command: { name: 'auth', args: ['pw5'] } }))
  logger.warn({ err: Object.assign(new Error('x'), { args: ['pw6'] }) })
  logger.trace({ headers: { authorization: 'Bearer pw7' } })
  logger.child({ token: 'https://x/payment/capture/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG' }).fatal('child')
  app.log.info({ password: 'app-own' }, 'the application logs what it wants')
  t.equal(app.log, before)
  const text = log.text()
  t.notMatch(text, /pw[1-7]|abcdefghijklmnop/)
  t.match(text, 'app-own', 'the application\'s logger has no Paywire redaction')
  t.equal(log.records().length, 7)

  const records: unknown[] = []
  const bare = new RedactingLogger({ info: (...args: unknown[]) => { records.push(args) } })
  bare.info({ password: 'x' })
  bare.debug('ignored: no debug method')
  bare.error('fallback to nothing')
  t.same(records, [[{ password: '[redacted]' }]], 'any logger with the methods it has')
  t.equal(bare.child({}).target, bare.target)
  t.equal(Object.isFrozen(paywireLogSerializers), true)
})
