import t from 'tap'
import {
  deprecate, DEPRECATIONS, findDeprecation, PAYWIREDEP003, PAYWIREDEP009, recordDeprecations
} from '../../../../../plugins/core/engine/deprecations.ts'

t.test('codes are PAYWIREDEP001… in order, and every message names the replacement and its guide section', async (t) => {
  t.same(DEPRECATIONS.map((deprecation) => deprecation.code),
    Array.from({ length: DEPRECATIONS.length }, (_, i) => `PAYWIREDEP${String(i + 1).padStart(3, '0')}`))
  for (const deprecation of DEPRECATIONS) {
    t.equal(deprecation.warning.code, deprecation.code)
    t.equal(deprecation.warning.name, 'DeprecationWarning')
    t.match(deprecation.warning.message, `Use ${deprecation.replacement} instead`)
    t.match(deprecation.warning.message, `MIGRATION.md#${deprecation.code.toLowerCase()}`)
    t.equal(deprecation.guide, deprecation.code.toLowerCase())
  }
  t.equal(findDeprecation('PAYWIREDEP003'), PAYWIREDEP003)
  t.equal(findDeprecation('PAYWIREDEP999'), undefined)
})

t.test('a deprecation warns once per process, and every use is recorded', async (t) => {
  const warnings: Array<{ name: string, code?: string }> = []
  const listener = (warning: Error & { code?: string }) => { warnings.push({ name: warning.name, code: warning.code }) }
  process.on('warning', listener)
  t.teardown(() => { process.off('warning', listener) })

  const outer = new Set<string>()
  const inner = new Set<string>()
  recordDeprecations(outer, () => {
    deprecate(PAYWIREDEP009)
    recordDeprecations(inner, () => deprecate(PAYWIREDEP009))
  })
  await new Promise((resolve) => setImmediate(resolve))
  t.same(warnings, [{ name: 'DeprecationWarning', code: 'PAYWIREDEP009' }])
  t.ok(PAYWIREDEP009.warning.emitted)
  t.same([...outer], ['PAYWIREDEP009'])
  t.same([...inner], ['PAYWIREDEP009'], 'nested recorders both see it, after the warning was already emitted')
})

t.test('a recorder keeps what it saw when the run throws, and stops recording', async (t) => {
  const codes = new Set<string>()
  t.throws(() => recordDeprecations(codes, () => {
    deprecate(PAYWIREDEP003)
    throw new Error('build failed')
  }), { message: 'build failed' })
  t.same([...codes], ['PAYWIREDEP003'])
  deprecate(PAYWIREDEP009)
  t.same([...codes], ['PAYWIREDEP003'])
})
