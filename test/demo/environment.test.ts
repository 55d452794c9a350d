/*
 * npm start's settings (demo/environment.ts): a bad value is refused with one line naming the
 * variable and what to put there.
 */
import t from 'tap'
import { DemoConfigError, readEnvironment } from '../../demo/environment.ts'
import { startupMessage } from '../../demo/start.ts'
import { envWith } from '../helpers/child-process.ts'

t.test('npm start explains what to change when it cannot start', async (t) => {
  const saved = { ...process.env }
  t.teardown(() => { process.env = saved })
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT=abc is not a port number/],
    [{ PORT: '70000' }, /^PORT=70000 is not a port number/],
    [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL=verbose is not a log level: use one of fatal, error/],
    [{ REDIS_URL: 'http://127.0.0.1:6379' }, /^REDIS_URL must start with redis:\/\/ or rediss:\/\/ .*not http:/],
    [{ PAYPAL_CLIENT_ID: 'id' }, /^PAYPAL_CLIENT_ID is set without PAYPAL_CLIENT_SECRET/],
    [{ PAYPAL_CLIENT_SECRET: 'canary-secret' }, /^PAYPAL_CLIENT_SECRET is set without PAYPAL_CLIENT_ID/]
  ]
  for (const [variables, message] of cases) {
    process.env = envWith(variables, ['PORT', 'LOG_LEVEL', 'REDIS_URL', 'PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET'].filter((name) => !(name in variables)))
    const error = (() => { try { readEnvironment(); return null } catch (error) { return error } })()
    t.ok(error instanceof DemoConfigError, JSON.stringify(variables))
    t.match(startupMessage(error), message)
    t.notMatch(startupMessage(error), 'canary-secret')
  }
})
