/*
 * The migrate command: runMigrations() and `paywire migrate` (what `npm run migrate` runs),
 * idempotent, with the password kept out of its output.
 */
import pg from 'pg'
import t from 'tap'
import { LATEST_SCHEMA_VERSION, MIGRATIONS, runMigrations } from '../../../plugins/postgres/index.ts'
import { runCli } from '../../../bin/commands.ts'
import { DATABASE_URL, dropSchema, schemaName } from './fixtures.ts'

const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 })
t.teardown(() => admin.end())

t.test('runMigrations applies what is missing, then finds the schema up to date', async (t) => {
  const schema = schemaName('command')
  t.teardown(() => dropSchema(admin, schema))
  const lines: string[] = []
  const first = await runMigrations({ connectionString: DATABASE_URL, schema, log: (line) => lines.push(line) })
  t.same([first.from, first.to, first.applied.length], [0, LATEST_SCHEMA_VERSION, MIGRATIONS.length])
  t.match(lines.at(-1), `schema "${schema}": now at version ${LATEST_SCHEMA_VERSION} (was 0)`)
  const again = await runMigrations({ connectionString: DATABASE_URL, schema, log: (line) => lines.push(line) })
  t.same(again.applied, [])
  t.match(lines.at(-1), `schema "${schema}": up to date (version ${LATEST_SCHEMA_VERSION})`)
  await t.rejects(runMigrations({ connectionString: DATABASE_URL, schema: 'Not Valid' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"schema"/ })
  await t.rejects(runMigrations({ connectionString: '' }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /DATABASE_URL/ })
})

async function cli (env: Record<string, string | undefined>, args: string[]): Promise<{ code: number | undefined, out: string }> {
  let out = ''
  const io = { out: (text: string) => { out += text }, err: (text: string) => { out += text }, env, signals: { once: () => {} } }
  const code = await runCli(['migrate', ...args], io)
  return { code, out }
}

t.test('paywire migrate (npm run migrate): exit code 0 and what it did; 1 with the reason and without the password', async (t) => {
  const schema = schemaName('script')
  t.teardown(() => dropSchema(admin, schema))
  const done = await cli({ DATABASE_URL }, ['--schema', schema])
  t.equal(done.code, 0)
  t.match(done.out, 'applied migration 1')
  const failed = await cli({ DATABASE_URL: 'postgres://shop:s3cr3t-pw@127.0.0.1:1/shop' }, [])
  t.equal(failed.code, 1)
  t.match(failed.out, /PAYWIRE_ERR_POSTGRES_UNREACHABLE: PostgreSQL at postgres:\/\/shop:\*\*\*@127\.0\.0\.1:1\/shop is unreachable/)
  t.notMatch(failed.out, 's3cr3t-pw')
  t.match((await cli({}, ['--help'])).out, 'Usage: paywire migrate')
  const wrong = await cli({ DATABASE_URL }, ['--schemata', 'x'])
  t.equal(wrong.code, 2)
  t.match(wrong.out, /unknown option --schemata: did you mean --schema\?/)
  t.match((await cli({}, [])).out, /PAYWIRE_ERR_INVALID_OPTION: .*DATABASE_URL/)
})
