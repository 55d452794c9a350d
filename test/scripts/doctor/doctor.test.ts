import t from 'tap'
import { EXIT_DEPRECATED, EXIT_ERRORS, EXIT_OK, USAGE, formatReport, runDoctor } from '../../../scripts/doctor/doctor.ts'

const fixture = (name: string): string => `test/scripts/doctor/fixtures/${name}`

async function doctor (...argv: string[]): Promise<{ code: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const code = await runDoctor(argv, { out: (text) => { out += text }, err: (text) => { err += text } })
  return { code, out, err }
}

/** The report's table rows, cells split on their column gaps. */
function rows (out: string): string[][] {
  return out.split('\n\n')[0]?.split('\n').slice(1).map((line) => line.split(/ {2,}/)) ?? []
}

t.test('the 1.x twin: one row per deprecation, each with its code and fix', async (t) => {
  const { code, out, err } = await doctor(fixture('v1-shop.ts'))
  t.equal(code, EXIT_OK, 'deprecations alone do not fail without --strict')
  t.equal(err, '')
  t.match(out, /^GATEWAY +FACTORY +STYLE +FINDING +FIX OR ERROR\n/)
  const table = rows(out)
  t.same(table.map((row) => row.slice(0, 4)), [
    'PAYWIREDEP001', 'PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP005', 'PAYWIREDEP006',
    'PAYWIREDEP007', 'PAYWIREDEP008', 'PAYWIREDEP010', 'PAYWIREDEP011'
  ].map((finding) => ['shop', 'acme', '1.x', finding]))
  t.equal(table[0]?.[4], 'GatewayFactory as the base class of a gateway factory → CoreGatewayFactory: extend CoreGatewayFactory and declare options and services in configureContainer(), actions in getActions() and extensions in getExtensions(). (MIGRATION.md#paywiredep001)')
  t.match(out, '\n1 gateway(s) checked, 1 using deprecated APIs (removed in the next major version), 0 with errors.\n')
  t.match(out, 'run the doctor with --strict')
})

t.test('--strict fails on the 1.x twin and passes on its migrated twin', async (t) => {
  t.equal((await doctor(fixture('v1-shop.ts'), '--strict')).code, EXIT_DEPRECATED)
  const migrated = await doctor('--strict', fixture('v2-shop.ts'))
  t.equal(migrated.code, EXIT_OK)
  t.same(rows(migrated.out), [['shop', 'acme', '2.0', 'ok']])
  t.notMatch(migrated.out, '--strict')
})

t.test('a gateway that cannot be built is reported with its code and message, and always fails', async (t) => {
  const { code, out } = await doctor(fixture('broken-shop.ts'))
  t.equal(code, EXIT_ERRORS)
  t.same(rows(out), [
    ['shop', 'acme', '2.0', 'PAYWIRE_ERR_SERVICE_NOT_FOUND', 'Service \'AcmeApi\' is not registered (needed by CaptureAction). Use the class reference get(AcmeApi) instead of the string \'AcmeApi\': classes are registered by reference, so two classes with one name never collide.'],
    ['cash', 'offline', '2.0', 'ok']
  ], 'the other gateway is still checked')
  t.match(out, '2 gateway(s) checked, 0 using deprecated APIs (removed in the next major version), 1 with errors.')
})

t.test('a Fastify app: made ready, inspected, closed', async (t) => {
  const { code, out } = await doctor(`${fixture('fastify-app.ts')}#app`, '--strict')
  t.equal(code, EXIT_DEPRECATED)
  t.equal(rows(out)[0]?.slice(0, 4).join(' '), 'shop acme 1.x PAYWIREDEP001')
})

t.test('usage: one module, known flags', async (t) => {
  t.same(await doctor('--help'), { code: EXIT_OK, out: USAGE, err: '' })
  t.same(await doctor(), { code: EXIT_ERRORS, out: '', err: USAGE })
  t.same(await doctor(fixture('v1-shop.ts'), fixture('v2-shop.ts')), { code: EXIT_ERRORS, out: '', err: USAGE })
  t.same(await doctor(fixture('v1-shop.ts'), '--fix'), { code: EXIT_ERRORS, out: '', err: USAGE })
})

t.test('a module without a setup, or that cannot be loaded, says so', async (t) => {
  const nothing = await doctor(`${fixture('other-exports.ts')}#nothing`)
  t.equal(nothing.code, EXIT_ERRORS)
  t.equal(nothing.err, `Cannot load the Paywire setup from ${fixture('other-exports.ts')}#nothing: Module ${fixture('other-exports.ts')}#nothing has no Paywire setup under the export names nothing: export a PaywireBuilder, a Paywire, a Fastify app registering the paywire plugin, or a function returning one of them.\n`)
  t.same(await doctor(`${fixture('other-exports.ts')}#rejecting`), {
    code: EXIT_ERRORS, out: '', err: `Cannot load the Paywire setup from ${fixture('other-exports.ts')}#rejecting: the shop's setup failed\n`
  })
  const missing = await doctor(fixture('missing.ts'))
  t.equal(missing.code, EXIT_ERRORS)
  t.match(missing.err, `Cannot load the Paywire setup from ${fixture('missing.ts')}: Cannot find module`)
})

t.test('a gateway registered as a ready object shows no factory and no style', async (t) => {
  t.equal(formatReport([{ gateway: 'hand-made', factory: undefined, style: undefined, deprecations: [], errors: [] }]),
    'GATEWAY    FACTORY           STYLE  FINDING  FIX OR ERROR\nhand-made  (gateway object)  -      ok\n\n1 gateway(s) checked, 0 using deprecated APIs (removed in the next major version), 0 with errors.\n')
})
