import { createServer } from 'node:net'
import t from 'tap'
import { checkTestServices, main } from '../../../scripts/test-services/check.ts'
import { REDIS_URL } from '../../plugins/redis/fixtures.ts'
import { DATABASE_URL } from '../../plugins/postgres/fixtures.ts'

/** A loopback port nothing listens on: connecting to it is refused at once. */
async function closedPort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

t.test('with Redis and PostgreSQL running, nothing is reported and npm test goes on', async (t) => {
  t.same(await checkTestServices({ redisUrl: REDIS_URL, databaseUrl: DATABASE_URL }), [])
  const errors: string[] = []
  t.equal(await main({ REDIS_URL, DATABASE_URL }, (text) => errors.push(text)), 0)
  t.same(errors, [])
})

t.test('without Redis, the check fails with "start Redis on REDIS_URL" instead of minutes of ECONNREFUSED', async (t) => {
  const port = await closedPort()
  const errors: string[] = []
  const code = await main({ REDIS_URL: `redis://:<REDIS_PASSWORD>@127.0.0.1:${port}`, DATABASE_URL }, (text) => errors.push(text))
  t.equal(code, 1)
  const text = errors.join('')
  t.match(text, `start Redis on REDIS_URL (redis://:***@127.0.0.1:${port}): ECONNREFUSED`)
  t.notMatch(text, '<REDIS_PASSWORD>', 'a password in the URL is not printed')
  t.notMatch(text, 'PostgreSQL on DATABASE_URL', 'the service that runs is not reported')
})

t.test('without PostgreSQL, it says to start PostgreSQL on DATABASE_URL', async (t) => {
  const port = await closedPort()
  const problems = await checkTestServices({ redisUrl: REDIS_URL, databaseUrl: `postgres://postgres@127.0.0.1:${port}/test` })
  t.equal(problems.length, 1)
  t.match(problems[0], `start PostgreSQL on DATABASE_URL (postgres://postgres@127.0.0.1:${port}/test): ECONNREFUSED`)
})
