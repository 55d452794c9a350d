import t from 'tap'
import { MIGRATIONS, PostgresIdempotencyStore, PostgresStorageBackend } from '../../../plugins/postgres/index.ts'
import { idempotencyStoreContract as contract } from '../../helpers/idempotency-contract.ts'
import { testPostgres } from './fixtures.ts'

t.test('the PostgreSQL backend\'s idempotency store keeps the contract, under its namespace', async (t) => {
  const { pool, schema } = await testPostgres(t, 'idempotency_contract')
  const backend = new PostgresStorageBackend(pool, { schema })
  const store = backend.createIdempotencyStore('graphql')
  t.ok(store instanceof PostgresIdempotencyStore)
  await contract(t, store)
  const { rows } = await pool.query(`SELECT key FROM "${schema}".idempotency`)
  t.same(rows, [{ key: 'graphql:k' }], 'keys live under the namespace')
  t.equal(await backend.createIdempotencyStore('orders').claim('k', { fingerprint: 'o', owner: 'x' }, 60_000), null, 'another namespace is another key')
  await backend.settled()
})

t.test('records expire: an expired claim is free again, an expired claim cannot complete, and sweeps delete expired rows', async (t) => {
  const { pool, schema } = await testPostgres(t, 'idempotency_expiry')
  let now = 0
  const store = new PostgresIdempotencyStore(pool, { schema, namespace: 'graphql', sweepIntervalMs: 1000, now: () => now })
  const expire = async (key: string) => await pool.query(`UPDATE "${schema}".idempotency SET expires_at = clock_timestamp() - interval '1 second' WHERE key = $1`, [`graphql:${key}`])

  t.equal(await store.claim('a', { fingerprint: 'f', owner: 'first' }, 30_000), null)
  await expire('a')
  t.equal(await store.claim('a', { fingerprint: 'f', owner: 'second' }, 30_000), null, 'the lock ran out: the key is taken over')
  await store.complete('a', { fingerprint: 'f', owner: 'first', result: 'late' }, 60_000)
  t.same(await store.claim('a', { fingerprint: 'f', owner: 'third' }, 30_000), { fingerprint: 'f', owner: 'second' }, 'the first owner lost it')
  await expire('a')
  await store.complete('a', { fingerprint: 'f', owner: 'second', result: 'too late' }, 60_000)
  const { rows: [row] } = await pool.query(`SELECT record FROM "${schema}".idempotency WHERE key = 'graphql:a'`)
  t.notOk('result' in row.record, 'an expired claim does not complete')

  await store.claim('b', { fingerprint: 'f', owner: 'o' }, 30_000)
  await store.complete('b', { fingerprint: 'f', owner: 'o', result: { paymentId: 'p' } }, 86_400_000)
  const { rows: [ttl] } = await pool.query(`SELECT expires_at > clock_timestamp() + interval '23 hours' AS long FROM "${schema}".idempotency WHERE key = 'graphql:b'`)
  t.equal(ttl.long, true, 'completed records live for the ttl')
  now = 5000
  await store.claim('c', { fingerprint: 'f', owner: 'o' }, 30_000)
  await store.settled()
  const { rows: left } = await pool.query(`SELECT key FROM "${schema}".idempotency ORDER BY key`)
  t.same(left.map((entry) => entry.key), ['graphql:b', 'graphql:c'], 'the sweep a claim started removed the expired record only')
  t.equal(await store.sweep(), 0)
  t.equal(await new PostgresIdempotencyStore(pool, { schema, namespace: 'n', sweepIntervalMs: 0 }).claim('x', { fingerprint: 'f', owner: 'o' }, 1000), null, 'sweeps can be left to sweep()')
})

t.test('migration 3 creates the idempotency table, recorded with the others', async (t) => {
  const { pool, schema } = await testPostgres(t, 'idempotency_migration')
  t.ok(MIGRATIONS.some((migration) => migration.version === 3))
  const { rows } = await pool.query(`SELECT version FROM "${schema}".paywire_migrations ORDER BY version`)
  t.same(rows.map((row) => row.version), MIGRATIONS.map((migration) => migration.version))
  const { rows: [table] } = await pool.query('SELECT to_regclass($1) IS NOT NULL AS exists', [`"${schema}".idempotency`])
  t.equal(table.exists, true)
})

t.test('a record released between the claim\'s insert and its read: the claim tries again and takes the key', async (t) => {
  const { pool, schema } = await testPostgres(t, 'idempotency_race')
  const holder = new PostgresIdempotencyStore(pool, { schema, namespace: 'graphql', sweepIntervalMs: 0 })
  await holder.claim('k', { fingerprint: 'f', owner: 'holder' }, 30_000)
  let releases = 0
  // A hook on the claim's read: the holder releases (or, the second time, nobody does) right before it.
  const hooked = {
    query: async (text: string, values: unknown[]) => {
      if (text.startsWith('SELECT record') && releases++ === 0) await holder.release('k', 'holder')
      return await pool.query(text, values)
    }
  } as unknown as typeof pool
  const store = new PostgresIdempotencyStore(hooked, { schema, namespace: 'graphql', sweepIntervalMs: 0 })
  t.equal(await store.claim('k', { fingerprint: 'f', owner: 'retrier' }, 30_000), null, 'taken on the second attempt')
  const { rows } = await pool.query(`SELECT owner FROM "${schema}".idempotency`)
  t.same(rows, [{ owner: 'retrier' }])
})

t.test('a key that changes hands on every attempt: a retryable 503, never a claim without a row', async (t) => {
  const { pool, schema } = await testPostgres(t, 'idempotency_churn')
  const holder = new PostgresIdempotencyStore(pool, { schema, namespace: 'graphql', sweepIntervalMs: 0 })
  await holder.claim('k', { fingerprint: 'f', owner: 'holder' }, 30_000)
  const hooked = {
    query: async (text: string, values: unknown[]) => {
      if (text.startsWith('SELECT record')) {
        // Released right before each read, and taken again right after it.
        await holder.release('k', 'holder')
        const answer = await pool.query(text, values)
        await holder.claim('k', { fingerprint: 'f', owner: 'holder' }, 30_000)
        return answer
      }
      return await pool.query(text, values)
    }
  } as unknown as typeof pool
  const store = new PostgresIdempotencyStore(hooked, { schema, namespace: 'graphql', sweepIntervalMs: 0 })
  await t.rejects(store.claim('k', { fingerprint: 'f', owner: 'unlucky' }, 30_000), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', statusCode: 503 })
  const { rows } = await pool.query(`SELECT owner FROM "${schema}".idempotency`)
  t.same(rows, [{ owner: 'holder' }])
})
