/*
 * The outbox's due index (migration 6): a schema at migration 5 with events waiting gets one
 * row per partition from its heads; and the settle that empties a partition while a commit
 * appends to it (held open by the test, a barrier on PostgreSQL's lock wait) leaves the row,
 * so the new event stays due. A stale row (no event behind it) goes with the next pass.
 */
import t from 'tap'
import { MIGRATIONS, PostgresStorageBackend, migrate, type PostgresOutbox } from '../../../plugins/postgres/index.ts'
import { blockedOnALock, testPostgres } from './fixtures.ts'

const record = (partition: string, id: string) => ({ id, partition, type: 'payment.captured', json: '{}' })

t.test('migration 6 builds the due index from the waiting events of a schema at version 5', async (t) => {
  const { pool, schema } = await testPostgres(t, 'due_migration', { migrated: false })
  const s = `"${schema}"`
  await pool.query(`CREATE SCHEMA ${s}; CREATE TABLE ${s}.paywire_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
  for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) {
    await pool.query(migration.sql(s))
    await pool.query(`INSERT INTO ${s}.paywire_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
  }
  const now = Date.now()
  await pool.query(`INSERT INTO ${s}.outbox (partition, id, type, event, due_ms, dead_at) VALUES
    ('P:dead', 'e1', 't', '{}', $1, now()), ('P:dead', 'e2', 't', '{}', $1, NULL),
    ('P:later', 'e3', 't', '{}', $2, NULL), ('P:later', 'e4', 't', '{}', $1, NULL),
    ('P:now', 'e5', 't', '{}', $3, NULL)`, [now - 5, now + 60_000, now - 10])
  const result = await migrate(pool, schema)
  t.same(result.applied.map((m) => m.version), [6])
  const { rows } = await pool.query(`SELECT partition, due_ms::float8 AS due FROM ${s}.outbox_due ORDER BY partition`)
  t.same(rows, [{ partition: 'P:dead', due: now - 5 }, { partition: 'P:later', due: now + 60_000 }, { partition: 'P:now', due: now - 10 }],
    'each partition with a waiting event, due when its head (the oldest event not dead) is')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  t.same(await outbox.due(now, 10), ['P:now', 'P:dead'], 'due() reads it, oldest due first')
  t.equal(await outbox.nextDueAt(), now - 10)
})

t.test('the due row follows the settles and every append', async (t) => {
  const { pool, schema } = await testPostgres(t, 'due_rows')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  const dueRow = async (partition: string) => (await pool.query(`SELECT due_ms::float8 AS due FROM "${schema}".outbox_due WHERE partition = $1`, [partition])).rows[0]?.due as number | undefined
  await outbox.append([record('P:1', 'a1'), record('P:1', 'a2')])
  t.ok(await dueRow('P:1'), 'an append makes the row')
  const batch = await outbox.leaseBatch('P:1', 10_000, 10)
  const retryAt = Date.now() + 60_000
  t.ok(await outbox.settleBatch(batch!.lease, [{ entry: batch!.entries[0]!, settlement: { outcome: 'retry', dueAt: retryAt, error: 'down' } }]))
  t.equal(await dueRow('P:1'), retryAt, 'a retried head moves the row to its due time')
  t.equal(await outbox.nextDueAt(), retryAt)
  t.same(await outbox.due(Date.now(), 10), [], 'not due before then')
  const again = await outbox.leaseBatch('P:1', 10_000, 10)
  t.ok(await outbox.settleBatch(again!.lease, again!.entries.map((entry) => ({ entry, settlement: { outcome: 'delivered' as const } }))))
  t.equal(await dueRow('P:1'), undefined, 'a partition with nothing waiting has no row')
  t.equal(await outbox.nextDueAt(), null)
})

t.test('a settle emptying the partition while a commit appends to it leaves the partition due', async (t) => {
  const { pool, schema } = await testPostgres(t, 'due_race')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  await outbox.append([record('P:race', 'r1')])
  const batch = await outbox.leaseBatch('P:race', 10_000, 10)
  t.equal(batch?.entries.length, 1)
  const client = await pool.connect()
  t.teardown(() => client.release())
  await client.query('BEGIN')
  await client.query(`INSERT INTO "${schema}".outbox (partition, id, type, event, due_ms) VALUES ('P:race', 'r2', 't', '{}', 0)`)
  // The settle's snapshot sees no event left: only the row's gen, moved by the append, keeps it.
  const settled = outbox.settleBatch(batch!.lease, [{ entry: batch!.entries[0]!, settlement: { outcome: 'delivered' } }])
  await blockedOnALock(pool, schema)
  await client.query('COMMIT')
  t.equal(await settled, true)
  t.same(await outbox.due(Date.now(), 10), ['P:race'], 'the appended event is still due')
  const next = await outbox.leaseBatch('P:race', 10_000, 10)
  t.same(next?.entries.map((entry) => entry.id), ['r2'])
})

t.test('a row with no event behind it goes with the pass that finds the partition empty', async (t) => {
  const { pool, schema } = await testPostgres(t, 'due_stale')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  await pool.query(`INSERT INTO "${schema}".outbox_due (partition, due_ms, gen) VALUES ('P:stale', 0, 1)`)
  t.same(await outbox.due(Date.now(), 10), ['P:stale'])
  const batch = await outbox.leaseBatch('P:stale', 10_000, 10)
  t.same(batch?.entries, [])
  t.ok(await outbox.settleBatch(batch!.lease, []))
  t.same(await outbox.due(Date.now(), 10), [])
  t.equal(await outbox.nextDueAt(), null)
})

t.test('one event at a time (settle) keeps the row too', async (t) => {
  const { pool, schema } = await testPostgres(t, 'due_each')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  await outbox.append([record('P:each', 'x1'), record('P:each', 'x2')])
  const lease = await outbox.lease('P:each', 10_000)
  t.ok(await outbox.settle(lease!, (await outbox.head(lease!))!, { outcome: 'delivered' }))
  t.same(await outbox.due(Date.now(), 10), ['P:each'], 'one left: still due')
  t.ok(await outbox.settle(lease!, (await outbox.head(lease!))!, { outcome: 'dead', error: 'no' }))
  await outbox.release(lease!)
  t.same(await outbox.due(Date.now(), 10), [], 'none left waiting')
  t.equal(await outbox.nextDueAt(), null)
})
