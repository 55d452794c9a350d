import t from 'tap'
import { validateOptions } from '../../../plugins/core/index.ts'
import { healthRouteOptions } from '../../../plugins/core/options.ts'
import { buildTestApp } from './fixtures.ts'

/*
 * The core plugin's health option: off unless asked, `true` for <prefix>/health, or a path
 * of the application's choosing; answered with app.paywire.health() as JSON.
 */

t.test('health: true serves <prefix>/health: 200 with the report, never cached', async (t) => {
  const { app } = await buildTestApp({ prefix: '/pay', health: true })
  t.teardown(() => app.close())
  const answer = await app.inject({ url: '/pay/health' })
  t.equal(answer.statusCode, 200)
  t.match(answer.headers['content-type'], /^application\/json/)
  t.equal(answer.headers['cache-control'], 'no-store')
  t.match(answer.json(), {
    status: 'ok',
    checkedAt: /^\d{4}-\d\d-\d\dT/,
    checks: { storage: { status: 'ok', backend: 'MemoryStorageBackend' }, events: { status: 'ok', delivering: true, backlog: 0, dead: 0 } }
  })
  t.same(Object.keys(answer.json()).sort(), ['checkedAt', 'checks', 'status'])
  t.equal((await app.inject({ url: '/payment/health' })).statusCode, 404, 'under the configured prefix only')
})

t.test('off by default; { path } puts it where the probe looks, with or without the payment routes', async (t) => {
  const { app: plain } = await buildTestApp()
  t.teardown(() => plain.close())
  t.equal((await plain.inject({ url: '/payment/health' })).statusCode, 404)
  const { app } = await buildTestApp({ routes: false, health: { path: '/healthz', timeoutMs: 300, maxEventLagMs: 30_000 } })
  t.teardown(() => app.close())
  const answer = await app.inject({ url: '/healthz' })
  t.equal(answer.statusCode, 200)
  t.equal(answer.json().status, 'ok')
  t.equal((await app.inject({ url: '/payment/health' })).statusCode, 404)
})

t.test('health options are checked like the others, a misspelt one with the name meant', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ pth: '/healthz' }, /"health\.pth".*did you mean path\?/],
    [{ timeout: 300 }, /"health\.timeout".*did you mean timeoutMs\?/],
    [{ path: 'healthz' }, /"health\.path".*absolute path/],
    [{ path: 42 }, /"health\.path"/],
    [{ timeoutMs: -1 }, /"health\.timeoutMs".*above 0/],
    [{ maxEventLagMs: '60s' }, /"health\.maxEventLagMs"/],
    ['yes', /"health": must be true, or \{ path, timeoutMs, maxEventLagMs \}/],
    [null, /"health"/],
    [['/healthz'], /"health"/]
  ]
  for (const [health, message] of cases) {
    t.throws(() => validateOptions({ baseUrl: 'https://shop.example', health } as never), { code: 'PAYWIRE_ERR_INVALID_OPTION', message }, JSON.stringify(health))
  }
  t.throws(() => validateOptions({ baseUrl: 'https://shop.example', helth: true } as never), { message: /did you mean health\?/ })
  for (const health of [true, false, {}, { path: '/ops/ready', timeoutMs: 250.5 }]) {
    t.doesNotThrow(() => validateOptions({ baseUrl: 'https://shop.example', health }), JSON.stringify(health))
  }
})

t.test('where the route goes, and with which check options', async (t) => {
  t.equal(healthRouteOptions({}), undefined)
  t.equal(healthRouteOptions({ health: false }), undefined)
  t.same(healthRouteOptions({ health: true }), { path: '/payment/health', check: {} })
  t.same(healthRouteOptions({ prefix: '/pay', health: { timeoutMs: 250 } }), { path: '/pay/health', check: { timeoutMs: 250 } })
  t.same(healthRouteOptions({ health: { path: '/healthz', maxEventLagMs: 5000 } }), { path: '/healthz', check: { maxEventLagMs: 5000 } })
})
