/*
 * Which levels Paywire's logger reports as kept, asked before any line is built: the target's
 * isLevelEnabled, else its pino-named `level`, else whether the level's method does anything.
 */
import t from 'tap'
import { paywireLogger } from '../../../../../plugins/core/engine/index.ts'

function recorder (lines: string[]) {
  const method = (level: string) => (_fields: unknown, _message?: string) => { lines.push(level) }
  return { trace: method('trace'), debug: method('debug'), info: method('info'), warn: method('warn'), error: method('error') }
}

t.test('a logger\'s pino level decides, and lines below it are neither built nor written', async (t) => {
  const lines: string[] = []
  const logger = paywireLogger({ ...recorder(lines), level: 'info' })
  t.same(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map((level) => logger.isLevelEnabled?.(level)), [false, false, true, true, true, true])
  logger.trace({ a: 1 }, 'no')
  logger.debug('no')
  logger.info('yes')
  t.same(lines, ['info'])

  const silent: string[] = []
  const off = paywireLogger({ ...recorder(silent), level: 'silent' })
  off.error(new Error('kept nowhere'))
  t.same(silent, [])
  t.equal(off.isLevelEnabled?.('error'), false)
})

t.test('a level name that is not pino\'s is left to the methods', async (t) => {
  const lines: string[] = []
  const logger = paywireLogger({ ...recorder(lines), level: 'verbose' })
  logger.trace('kept')
  t.same(lines, ['trace'])
})

t.test('empty methods (Fastify\'s logger: false) keep nothing; a method that does something keeps its level', async (t) => {
  function noop () { }
  const abstract = { fatal: noop, error: noop, warn: noop, info: noop, debug: noop, trace: noop }
  const logger = paywireLogger(abstract)
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) t.equal(logger.isLevelEnabled?.(level), false, level)
  t.equal(logger.isLevelEnabled?.('trace'), false, 'asked again: the same answer')

  let warned = 0
  const shapes = paywireLogger({
    trace: () => {},
    debug: async (_fields: unknown) => {},
    info (_fields: unknown, _message?: string) { },
    warn: () => { warned++ }
  })
  t.same(['trace', 'debug', 'info', 'warn'].map((level) => shapes.isLevelEnabled?.(level)), [false, false, false, true])
  t.equal(shapes.isLevelEnabled?.('error'), false, 'no error method and nothing to fall back to')
  shapes.warn('written')
  t.equal(warned, 1)

  const lines: string[] = []
  const debugOnly = paywireLogger({ debug: (fields: unknown) => { lines.push(String(fields)) }, info: noop, warn: noop, error: noop })
  t.equal(debugOnly.isLevelEnabled?.('trace'), true, 'trace lines go to debug, which writes')
  debugOnly.trace('to debug')
  t.same(lines, ['to debug'])
})

t.test('a level Paywire does not use is answered by the target as before', async (t) => {
  const asked: string[] = []
  const logger = paywireLogger({ ...recorder([]), isLevelEnabled: (level: string) => { asked.push(level); return level === 'http' } })
  t.equal(logger.isLevelEnabled?.('http'), true)
  t.equal(logger.isLevelEnabled?.('silent'), false)
  t.same(asked, ['http', 'silent'])
  t.equal(paywireLogger(recorder([])).isLevelEnabled?.('http'), true, 'a logger without isLevelEnabled keeps it')
})
