import t from 'tap'
import { DEPRECATIONS } from '../../../plugins/core/engine/index.ts'
import { AcmeApi, AcmeGatewayFactory } from '../../../examples/migration/v1/index.ts'
import { acmeBehaviour } from './fixtures/acme-behaviour.ts'

const warned: string[] = []
process.on('warning', (warning: Error & { code?: string }) => {
  if (warning.name === 'DeprecationWarning' && warning.code?.startsWith('PAYWIREDEP') === true) warned.push(warning.code)
})

acmeBehaviour(t, { createFactory: () => new AcmeGatewayFactory(), Api: AcmeApi })

t.test('the 1.x factory warns, once each, about exactly what it uses', async (t) => {
  await new Promise((resolve) => setImmediate(resolve))
  const expected = [
    'PAYWIREDEP001', // extends GatewayFactory
    'PAYWIREDEP002', // populateConfig()
    'PAYWIREDEP004', // built through create()
    'PAYWIREDEP005', // paywire.action.* keys
    'PAYWIREDEP006', // the paywire.api closure
    'PAYWIREDEP007', // ApiAware actions
    'PAYWIREDEP008', // httplug.client
    'PAYWIREDEP010', // httplug.message_factory
    'PAYWIREDEP011' // the config read by a closure
  ]
  t.same([...warned].sort(), expected)
  t.same(DEPRECATIONS.filter((deprecation) => deprecation.warning.emitted).map((deprecation) => deprecation.code), expected)
})
