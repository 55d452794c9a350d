/*
 * The paywire-postgres plugin: its own pool or the application's, migrations only when
 * asked, the schema version checked at boot, coded errors, and a payment flow through the
 * core plugin with everything in PostgreSQL.
 */
import fastifyPostgres from '@fastify/postgres'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import t from 'tap'
import { Payment, paywire } from '../../../plugins/core/index.ts'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { LATEST_SCHEMA_VERSION, MIGRATIONS, paywirePostgres, schemaVersion, type PaywirePostgresOptions } from '../../../plugins/postgres/index.ts'
import { tcpProxy } from '../../helpers/tcp-proxy.ts'
import { DATABASE_URL, dropSchema, schemaName, testPostgres } from './fixtures.ts'

/** ready() as a plain promise, for t.rejects. */
async function boot (app: FastifyInstance): Promise<void> {
  await app.ready()
}

const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 })
t.teardown(() => admin.end())

/** A schema name dropped when the test file ends, whoever created it. */
function freshSchema (name: string): string {
  const schema = schemaName(name)
  t.teardown(() => dropSchema(admin, schema))
  return schema
}

async function shop (options: PaywirePostgresOptions): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywirePostgres, options)
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywirePostgres, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.ready()
  return app
}

t.test('migrate: true creates the schema at boot; a capture flow stores everything in it', async (t) => {
  const schema = freshSchema('flow')
  const app = await shop({ connectionString: DATABASE_URL, schema, migrate: true })
  t.equal(await schemaVersion(admin, schema), LATEST_SCHEMA_VERSION)
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'PG-1', totalAmount: 1999, currencyCode: 'EUR', details: { paid: true } })
  const token = await app.paywire.prepareCapture('cash', payment, 'done')
  const capture = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(capture.statusCode, 302)
  const done = await app.inject({ url: new URL(capture.headers.location as string).pathname, headers: { accept: 'application/json' } })
  t.equal(done.json().status, 'captured')
  const { rows } = await admin.query(`SELECT model, number, status, amount, currency, version FROM "${schema}".records WHERE id = $1`, [payment.id])
  t.same(rows, [{ model: 'Payment', number: 'PG-1', status: 'captured', amount: '1999', currency: 'EUR', version: '2' }], 'typed columns follow the record')
  const used = await admin.query(`SELECT used FROM "${schema}".tokens WHERE hash = $1`, [token.hash])
  t.same(used.rows, [{ used: true }], 'the capture token was used up in the commit')
  t.equal((await admin.query(`SELECT count(*)::int AS n FROM "${schema}".claims`)).rows[0].n, 0, 'the claim was released')
})

t.test('without migrate, boot checks the schema version and changes nothing', async (t) => {
  const schema = freshSchema('outdated')
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywirePostgres, { connectionString: DATABASE_URL, schema })
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_POSTGRES_SCHEMA_OUTDATED', message: new RegExp(`"${schema}" is at version 0 .*npx paywire migrate --schema ${schema}`) })
  const exists = await admin.query('SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [schema])
  t.equal(exists.rows[0].n, 0, 'no schema was created')
})

t.test('a schema migrated by a newer Paywire is refused', async (t) => {
  const { schema } = await testPostgres(t, 'too-new')
  await admin.query(`INSERT INTO "${schema}".paywire_migrations (version, name) VALUES ($1, 'from the future')`, [LATEST_SCHEMA_VERSION + 1])
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywirePostgres, { connectionString: DATABASE_URL, schema, migrate: true })
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_POSTGRES_SCHEMA_TOO_NEW' })
})

t.test('concurrent migrations apply each migration once', async (t) => {
  const schema = freshSchema('race')
  const apps = await Promise.all([0, 1, 2].map(async () => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(paywirePostgres, { connectionString: DATABASE_URL, schema, migrate: true })
    await app.ready()
    return app
  }))
  t.equal(apps.length, 3)
  const { rows } = await admin.query(`SELECT version FROM "${schema}".paywire_migrations ORDER BY version`)
  t.same(rows.map((row) => row.version), MIGRATIONS.map((migration) => migration.version))
})

t.test('a pool of the application is used and left open; the plugin\'s own pool is ended', async (t) => {
  const { schema } = await testPostgres(t, 'pools')
  const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 })
  t.teardown(() => pool.end())
  const app = await shop({ pool, schema })
  t.equal(app.paywirePostgres.pool, pool)
  await app.close()
  t.same((await pool.query('SELECT 1 AS one')).rows, [{ one: 1 }], 'still open')

  const own = await shop({ connectionString: DATABASE_URL, schema })
  const ownPool = own.paywirePostgres.pool
  await own.close()
  t.equal(ownPool.ending, true, 'the plugin ended the pool it opened')
})

t.test('@fastify/postgres: its app.pg is used as the pool, and stays its to close', async (t) => {
  const { schema } = await testPostgres(t, 'fastify-pg')
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(fastifyPostgres, { connectionString: DATABASE_URL, max: 2 })
  await app.register(async (scope) => {
    await scope.register(paywirePostgres, { pool: app.pg, schema })
    t.equal(scope.paywirePostgres.pool, app.pg.pool)
    const payments = scope.paywirePostgres.createStorage(Payment)
    const payment = Object.assign(payments.create(), { number: 'FASTIFY-PG' })
    await payments.update(payment)
    t.equal((await payments.findBy({ number: 'FASTIFY-PG' })).length, 1)
  })
  await app.ready()
})

t.test('options are checked, misspelt ones named with what was meant', async (t) => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ shema: 'x' }, /"shema": is not an option of the paywire-postgres plugin \(did you mean schema\?\)/],
    [{ connectionString: DATABASE_URL, schema: 'Bad-Name' }, /"schema": must be a lower-case SQL identifier/],
    [{ connectionString: DATABASE_URL, pool: {} }, /"pool": must be a pg.Pool/],
    [{ connectionString: DATABASE_URL, pool: admin }, /"connectionString": cannot be given with pool/],
    [{ connectionString: DATABASE_URL, migrate: 'yes' }, /"migrate": must be a boolean/],
    [{ connectionString: DATABASE_URL, queryTimeoutMs: 0 }, /"queryTimeoutMs"/],
    [{ connectionString: DATABASE_URL, tokenTtl: { capture: -1 } }, /"tokenTtl.capture"/]
  ]
  for (const [options, message] of cases) {
    const app = Fastify()
    app.register(paywirePostgres, options as PaywirePostgresOptions)
    await t.rejects(boot(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message }, JSON.stringify(Object.keys(options)))
    await app.close()
  }
  const saved = process.env.DATABASE_URL
  delete process.env.DATABASE_URL
  t.teardown(() => { if (saved !== undefined) process.env.DATABASE_URL = saved })
  const app = Fastify()
  app.register(paywirePostgres, {})
  await t.rejects(boot(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"connectionString": is required/ })
  await app.close()
})

t.test('an unreachable server fails boot with a coded error that hides the password', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(paywirePostgres, { connectionString: 'postgres://shop:s3cr3t-pw@127.0.0.1:1/shop', connectTimeoutMs: 2000 })
  const error = await boot(app).then(() => undefined, (error: Error) => error) as Error & { code: string }
  t.equal(error.code, 'PAYWIRE_ERR_POSTGRES_UNREACHABLE')
  t.match(error.message, 'postgres://shop:***@127.0.0.1:1/shop')
  t.notMatch(error.message, 's3cr3t-pw')
})

t.test('a server that does not make commits durable: a coded warning, or with requireDurability a boot error', async (t) => {
  const { schema } = await testPostgres(t, 'durability')
  // synchronous_commit is a per-session setting: this pool's sessions acknowledge commits before they reach the disk.
  const lax = new pg.Pool({ connectionString: DATABASE_URL, max: 1, options: '-c synchronous_commit=off' })
  t.teardown(() => lax.end())
  const warnings: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await app.register(paywirePostgres, { pool: lax, schema })
  await app.ready()
  t.match(warnings, [{ level: 40, code: 'PAYWIRE_WARN_POSTGRES_NOT_DURABLE', problem: 'synchronous_commit is off' }])

  const strict = Fastify()
  t.teardown(() => strict.close())
  strict.register(paywirePostgres, { pool: lax, schema, requireDurability: true })
  await t.rejects(boot(strict), { code: 'PAYWIRE_ERR_POSTGRES_NOT_DURABLE', message: /synchronous_commit is off/ })

  const quiet: unknown[] = []
  const durable = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { quiet.push(line) } } } })
  t.teardown(() => durable.close())
  await durable.register(paywirePostgres, { connectionString: DATABASE_URL, schema, requireDurability: true })
  await durable.ready()
  t.same(quiet, [], 'a durable server boots without a word')
})

t.test('an idle connection\'s error is logged without crashing, the server named without a password', async (t) => {
  const { schema } = await testPostgres(t, 'idle-error')
  const url = new URL(DATABASE_URL)
  const pool = new pg.Pool({ host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: url.username, max: 1 })
  t.teardown(() => pool.end())
  const lines: Array<Record<string, any>> = []
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  await app.register(paywirePostgres, { pool, schema })
  await app.ready()
  pool.emit('error', new Error('terminating connection due to administrator command\nDETAIL: more'))
  t.match(lines, [{ msg: 'PostgreSQL connection error', postgres: `postgres://${url.hostname}:${url.port || 5432}/${url.pathname.slice(1)}`, err: { message: 'terminating connection due to administrator command' } }])
  await app.close()
  t.equal(pool.listenerCount('error'), 0, 'the listener is removed on close')
})

t.test('a PostgreSQL that goes away answers 503 PAYWIRE_ERR_STORAGE_UNAVAILABLE, and works again when it is back', async (t) => {
  const { schema } = await testPostgres(t, 'away')
  const url = new URL(DATABASE_URL)
  const proxy = await tcpProxy(url.hostname, Number(url.port || 5432))
  t.teardown(() => proxy.close())
  url.host = `127.0.0.1:${proxy.port}`
  const app = await shop({ connectionString: url.href, schema, connectTimeoutMs: 1000 })
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'AWAY', totalAmount: 100, currencyCode: 'EUR' })
  const token = await app.paywire.prepareCapture('cash', payment, 'done')
  await proxy.cut()
  const answer = await app.inject({ url: new URL(token.targetUrl).pathname, headers: { accept: 'application/json' } })
  t.equal(answer.statusCode, 503)
  t.equal(answer.json().code, 'PAYWIRE_ERR_STORAGE_UNAVAILABLE')
  t.notMatch(answer.body, /AWAY|totalAmount/, 'no record in the answer')
  await proxy.restore()
  const retried = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(retried.statusCode, 302, 'the token stayed usable')
})
