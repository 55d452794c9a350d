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

t.test('an array of codes: each once, also for warnings raised after an await inside the run', async (t) => {
  const codes: string[] = []
  const result = await recordDeprecations(codes, async () => {
    deprecate(PAYWIREDEP003)
    await new Promise((resolve) => setImmediate(resolve))
    deprecate(PAYWIREDEP009)
    deprecate(PAYWIREDEP003)
    return 'built'
  })
  t.equal(result, 'built')
  t.same(codes, ['PAYWIREDEP003', 'PAYWIREDEP009'])
})

t.test('an async run is recorded until it settles, not after, and concurrent runs keep their own codes', async (t) => {
  const first: string[] = []
  const second: string[] = []
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  let lateWork: Promise<void> | undefined
  const running = recordDeprecations(first, async () => {
    await held
    deprecate(PAYWIREDEP009)
    // Work the run leaves behind in its async chain, after it settled.
    lateWork = held.then(() => new Promise((resolve) => setImmediate(resolve))).then(() => deprecate(PAYWIREDEP003))
  })
  await recordDeprecations(second, async () => {
    deprecate(PAYWIREDEP003)
  })
  release()
  await running
  await lateWork
  t.same(first, ['PAYWIREDEP009'], 'a warning raised by the run\'s chain after the run settled is not counted')
  t.same(second, ['PAYWIREDEP003'])
})

t.test('a rejected async run keeps what it saw and stops recording', async (t) => {
  const codes: string[] = []
  await t.rejects(recordDeprecations(codes, async () => {
    await null
    deprecate(PAYWIREDEP003)
    throw new Error('build failed')
  }), { message: 'build failed' })
  t.same(codes, ['PAYWIREDEP003'])
})
