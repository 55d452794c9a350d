/*
 * Paywire's logger and the request being served: lines follow runWithHttpRequest()'s `log`
 * only for the logger made to follow requests (the core plugin's), redacted the same way.
 */
import t from 'tap'
import { RedactingLogger, paywireLogger, runWithHttpRequest, type HttpRequestData } from '../../../../../plugins/core/engine/index.ts'

type Line = [string, unknown, string | undefined]

function recorder (lines: Line[], enabled: (level: string) => boolean = () => true) {
  const method = (level: string) => (fields: unknown, message?: string) => { lines.push([level, fields, message]) }
  return { trace: method('trace'), debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error'), isLevelEnabled: enabled }
}

function served (log: object): HttpRequestData {
  return { method: 'GET', uri: '/', query: {}, request: {}, content: '', headers: {}, clientIp: '127.0.0.1', userAgent: 'test', log }
}

t.test('a following logger writes to the request\'s logger while it is served, redacted; elsewhere to its own', async (t) => {
  const own: Line[] = []
  const request: Line[] = []
  const logger = paywireLogger(recorder(own), { followRequests: true })
  await runWithHttpRequest(served(recorder(request, (level) => level !== 'trace')), async () => {
    logger.info({ client_secret: '<CLIENT_SECRET>' }, 'during /payment/capture/abcdefghijklmnopqrstuvwxyz')
    logger.trace('skipped: the request logger keeps no trace lines')
    t.equal(logger.isLevelEnabled?.('trace'), false)
    t.equal(logger.isLevelEnabled?.('debug'), true)
  })
  logger.info('after')
  t.same(request, [['info', { client_secret: '[redacted]' }, 'during /payment/capture/abcdef…']])
  t.same(own, [['info', 'after', undefined]])
  t.equal(logger.isLevelEnabled?.('info'), true, 'a logger without isLevelEnabled keeps every level')
})

t.test('a logger the application gives keeps every line, also while a request is served', async (t) => {
  const own: Line[] = []
  const logger = paywireLogger(recorder(own))
  await runWithHttpRequest(served(recorder([])), async () => { logger.warn('mine') })
  t.same(own, [['warn', 'mine', undefined]])
  t.equal(logger.child({ gateway: 'x' }).followRequests, false, 'children follow as their parent does')
})

t.test('paywireLogger() keeps a redacting logger as it is, or makes one that follows as asked', async (t) => {
  const base = paywireLogger(recorder([]))
  t.equal(paywireLogger(base), base)
  t.equal(paywireLogger(base, { followRequests: false }), base)
  const following = paywireLogger(base, { followRequests: true })
  t.not(following, base)
  t.ok(following instanceof RedactingLogger && following.followRequests)
})
