import t from 'tap'
import { DEPRECATIONS } from '../../../plugins/core/engine/index.ts'
import { AcmeApi, AcmeGatewayFactory } from '../../../examples/migration/v2/index.ts'
import { acmeBehaviour } from './fixtures/acme-behaviour.ts'

const warned: string[] = []
process.on('warning', (warning: Error & { code?: string }) => {
  if (warning.name === 'DeprecationWarning' && warning.code?.startsWith('PAYWIREDEP') === true) warned.push(warning.code)
})

acmeBehaviour(t, { createFactory: () => new AcmeGatewayFactory(), Api: AcmeApi })

t.test('the migrated factory warns about nothing', async (t) => {
  await new Promise((resolve) => setImmediate(resolve))
  t.same(warned, [])
  t.same(DEPRECATIONS.filter((deprecation) => deprecation.warning.emitted), [])
})
