import t from 'tap'
import { defineScript } from '../../../plugins/redis/scripts.ts'
import { ownRedis } from '../../helpers/redis-server.ts'
import { testRedis } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'scripts')

t.test('a script runs as a client command, with keys then arguments', async (t) => {
  const append = defineScript<number>(client, 1, "return redis.call('APPEND', KEYS[1], ARGV[1])")
  t.equal(await append(`${prefix}text`, 'ab'), 2)
  t.equal(await append(`${prefix}text`, 'cd'), 4)
  t.equal(await client.get(`${prefix}text`), 'abcd')
})

t.test('a script is sent by its SHA-1, never defined on the client: the client\'s auto-pipelines copy no command', async (t) => {
  const first = defineScript<string>(client, 0, "return 'first'")
  const second = defineScript<string>(client, 0, "return 'second'")
  t.equal(await first(), 'first')
  t.equal(await second(), 'second', 'each script runs its own code, whatever its name')
  t.same(Object.keys((client as unknown as { scriptsSet: object }).scriptsSet), [], 'no command defined')
  t.notOk('paywireTestName' in client)
})

t.test('scripts survive a server that forgot them (restart, failover)', async (t) => {
  // A server of its own: flushing the shared server's scripts would cost every other test file a round trip.
  const { admin } = await ownRedis(t)
  const incr = defineScript<number>(admin, 1, "return redis.call('INCR', KEYS[1])")
  t.equal(await incr('count'), 1)
  await admin.script('FLUSH')
  t.equal(await incr('count'), 2, 'EVALSHA falls back to EVAL')
})
