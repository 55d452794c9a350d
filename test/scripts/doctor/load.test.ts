import t from 'tap'
import { Paywire } from '../../../plugins/core/engine/index.ts'
import { loadPaywire } from '../../../scripts/doctor/load.ts'

const fixture = (name: string): string => `test/scripts/doctor/fixtures/${name}`

t.test('a builder (default or named export) is built into a Paywire', async (t) => {
  for (const specifier of [fixture('broken-shop.ts'), fixture('v1-shop.ts'), `${fixture('other-exports.ts')}#createShop`]) {
    const loaded = await loadPaywire(specifier)
    t.ok(loaded.paywire instanceof Paywire, specifier)
    t.ok(loaded.paywire.hasGateway('shop'))
    await loaded.close()
  }
})

t.test('without #export the names default, paywire, builder and app are tried in that order', async (t) => {
  const loaded = await loadPaywire(fixture('other-exports.ts'))
  const { paywire } = await import('./fixtures/other-exports.ts')
  t.equal(loaded.paywire, paywire, 'the exported Paywire itself')
  await loaded.close()
})

t.test('a Fastify app is made ready, and closed with the loaded setup', async (t) => {
  const loaded = await loadPaywire(`${fixture('fastify-app.ts')}#app`)
  t.same(loaded.paywire.getGatewayNames(), ['shop'])
  const { events } = await import('./fixtures/fastify-app.ts')
  t.same(events, [])
  await loaded.close()
  t.same(events, ['closed'])
})

t.test('what is not a setup is refused with a coded error; a plain Fastify app is closed', async (t) => {
  for (const name of ['nothing', 'createNothing', 'plainApp', 'absent']) {
    await t.rejects(loadPaywire(`${fixture('other-exports.ts')}#${name}`), {
      code: 'PAYWIRE_ERR_DOCTOR_NO_SETUP',
      message: new RegExp(`under the export names ${name}:`)
    }, name)
  }
  const { plainApp } = await import('./fixtures/other-exports.ts')
  t.throws(() => plainApp.get('/late', async () => 'too late'), { code: 'FST_ERR_INSTANCE_ALREADY_LISTENING' }, 'the plain app was made ready then closed')
})
