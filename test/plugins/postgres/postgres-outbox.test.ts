/*
 * The batches settled in one tick go to PostgreSQL as one statement (SETTLE_MANY): a pass's
 * payments whose handlers end together cost one settle, not one each. Each batch still
 * counts only under its own lease: one whose lease was lost changes nothing, beside one
 * that settles.
 */
import t from 'tap'
import type pg from 'pg'
import { PaywireEvents, outboxRecord } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend, type PostgresOutbox } from '../../../plugins/postgres/index.ts'
import { blockedOnALock, testPostgres } from './fixtures.ts'

/** Counts the statements sent through the pool whose text matches `pattern`. */
function countStatements (t: { teardown: (fn: () => void) => void }, pool: pg.Pool, pattern: RegExp): () => number {
  let count = 0
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
  ;(pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    const first = args[0] as string | { text?: string }
    if (pattern.test(typeof first === 'string' ? first : first.text ?? '')) count++
    return query(...args)
  }
  t.teardown(() => { delete (pool as unknown as { query?: unknown }).query })
  return () => count
}

const SETTLE = /DELETE FROM \S+\.outbox_leases l USING unnest/

t.test('a dispatcher pass on PostgreSQL: the batches its handlers end together are settled in one statement', async (t) => {
  const { pool, schema } = await testPostgres(t, 'outbox_pass')
  const { outbox } = new PostgresStorageBackend(pool, { schema })
  const partitions = Array.from({ length: 10 }, (_, i) => `pass-${i}`)
  await outbox.append(partitions.flatMap((partition) => [1, 2].map((n) => outboxRecord({ id: `${partition}-${n}`, type: 'payment.captured' }, partition))))
  const settles = countStatements(t, pool, SETTLE)
  const events = new PaywireEvents({ debug () {}, info () {}, warn () {}, error () {} }, { outbox })
  t.teardown(() => events.close())
  const heard: string[] = []
  events.onAny((event) => { heard.push(event.id) })
  await events.drain()
  t.same(heard.sort(), partitions.flatMap((partition) => [`${partition}-1`, `${partition}-2`]).sort(), 'every event once')
  t.equal(settles(), 1, 'ten payments\' batches settled in one statement')
  t.same(await outbox.due(Date.now() + 60_000, 100), [], 'nothing left due')
  t.equal((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox_leases`)).rows[0].n, 0, 'every lease released')
})

t.test('settled in one statement, each batch counts only under its own lease', async (t) => {
  const { pool, schema } = await testPostgres(t, 'outbox_many')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  const record = (partition: string, id: string) => outboxRecord({ id, type: 'payment.captured' }, partition)
  await outbox.append([record('P:kept', 'k1'), record('P:kept', 'k2'), record('P:kept', 'k3'), record('P:lost', 'l1'), record('P:dead', 'd1')])
  const kept = (await outbox.leaseBatch('P:kept', 10_000, 10))!
  const lost = (await outbox.leaseBatch('P:lost', 10_000, 10))!
  const dying = (await outbox.leaseBatch('P:dead', 10_000, 10))!
  // P:lost's lease lapsed and another dispatcher holds it now.
  await pool.query(`UPDATE "${schema}".outbox_leases SET id = 'another' WHERE partition = 'P:lost'`)
  const retryAt = Date.now() + 60_000
  const settles = countStatements(t, pool, SETTLE)
  const answers = await Promise.all([
    outbox.settleBatch(kept.lease, [
      { entry: kept.entries[0]!, settlement: { outcome: 'delivered' } },
      { entry: kept.entries[1]!, settlement: { outcome: 'retry', dueAt: retryAt, error: 'handler down' } }]),
    outbox.settleBatch(lost.lease, [{ entry: lost.entries[0]!, settlement: { outcome: 'delivered' } }]),
    outbox.settleBatch(dying.lease, [{ entry: dying.entries[0]!, settlement: { outcome: 'dead', error: 'no handler takes it' } }])
  ])
  t.same(answers, [true, false, true], 'the lost lease answers false, the others true')
  t.equal(settles(), 1, 'one statement for the three')
  const { rows } = await pool.query(`SELECT id, attempts, due_ms::float8 AS due, last_error, dead_at IS NOT NULL AS dead FROM "${schema}".outbox ORDER BY seq`)
  t.same(rows.map((row) => row.id), ['k2', 'k3', 'l1', 'd1'], 'the delivered event is gone; the lost lease\'s event stays')
  t.match(rows[0], { id: 'k2', attempts: 1, due: retryAt, last_error: 'handler down', dead: false }, 'the retried one rescheduled')
  t.match(rows[2], { id: 'l1', attempts: 0, last_error: null, dead: false }, 'nothing changed under the lost lease')
  t.match(rows[3], { id: 'd1', attempts: 1, last_error: 'no handler takes it', dead: true }, 'the dead one marked')
  const due = await pool.query(`SELECT partition, due_ms::float8 AS due FROM "${schema}".outbox_due ORDER BY partition`)
  t.same(due.rows.map((row) => row.partition), ['P:kept', 'P:lost'], 'the emptied partition left the due index, the others stay')
  t.equal(due.rows[0].due, retryAt, 'the retried head moved its partition\'s due time')
  t.same((await outbox.dead()).map((entry) => entry.id), ['d1'])
  const leases = await pool.query(`SELECT partition, id FROM "${schema}".outbox_leases ORDER BY partition`)
  t.same(leases.rows, [{ partition: 'P:lost', id: 'another' }], 'the held leases released, the other instance\'s kept')
})

t.test('a failed settle statement fails every batch it carried', async (t) => {
  const { pool, schema } = await testPostgres(t, 'outbox_fail')
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  await outbox.append([outboxRecord({ id: 'a1', type: 'payment.captured' }, 'P:a'), outboxRecord({ id: 'b1', type: 'payment.captured' }, 'P:b')])
  const a = (await outbox.leaseBatch('P:a', 10_000, 10))!
  const b = (await outbox.leaseBatch('P:b', 10_000, 10))!
  await pool.query(`ALTER TABLE "${schema}".outbox_leases RENAME TO outbox_leases_gone`)
  const results = await Promise.allSettled([
    outbox.settleBatch(a.lease, [{ entry: a.entries[0]!, settlement: { outcome: 'delivered' } }]),
    outbox.settleBatch(b.lease, [{ entry: b.entries[0]!, settlement: { outcome: 'delivered' } }])
  ])
  t.same(results.map((result) => result.status), ['rejected', 'rejected'])
  t.match((results[0] as PromiseRejectedResult).reason, { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' })
  await pool.query(`ALTER TABLE "${schema}".outbox_leases_gone RENAME TO outbox_leases`)
  t.equal((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`)).rows[0].n, 2, 'nothing was deleted')
})

/*
 * A commit appending to two payments takes their due rows in the partitions' order (the outbox
 * trigger). A settle of both must too: were it to take P:b (a partition it empties) before P:a
 * (one it moves) while the commit holds P:a and waits for P:b, each would wait for the other
 * (PostgreSQL would abort one after deadlock_timeout). The commit is held between its two rows
 * by a trigger of the test's own, waiting on an advisory lock the test holds.
 */
t.test('a settle of several partitions and a commit appending to them take their due rows in one order: neither waits on the other forever', async (t) => {
  const { pool, schema } = await testPostgres(t, 'outbox_order')
  const s = `"${schema}"`
  const outbox = new PostgresStorageBackend(pool, { schema }).outbox as PostgresOutbox
  const record = (partition: string, id: string) => outboxRecord({ id, type: 'payment.captured' }, partition)
  await outbox.append([record('P:a', 'a1'), record('P:a', 'a2'), record('P:b', 'b1')])
  const a = (await outbox.leaseBatch('P:a', 10_000, 1))!
  const b = (await outbox.leaseBatch('P:b', 10_000, 10))!
  await pool.query(`CREATE FUNCTION ${s}.test_pause() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      IF current_setting('test.pause', true) = 'on' AND NEW.partition = 'P:b' THEN PERFORM pg_advisory_xact_lock(4242); END IF;
      RETURN NEW;
    END $fn$;
    CREATE TRIGGER test_pause BEFORE INSERT ON ${s}.outbox_due FOR EACH ROW EXECUTE FUNCTION ${s}.test_pause()`)
  const gate = await pool.connect()
  const commit = await pool.connect()
  t.teardown(() => { gate.release(); commit.release() })
  await gate.query('BEGIN')
  await gate.query('SELECT pg_advisory_xact_lock(4242)')
  await commit.query('BEGIN')
  await commit.query('SET LOCAL test.pause = \'on\'')
  // Holds P:a's due row, then waits at the gate before P:b's.
  const appended = commit.query(`INSERT INTO ${s}.outbox (partition, id, type, event, due_ms) VALUES ('P:a', 'a3', 't', '{}', 0), ('P:b', 'b2', 't', '{}', 0)`)
  await blockedOnALock(pool, schema)
  // P:a's batch leaves a2 (its due row moves), P:b's empties it (its due row goes).
  const settled = Promise.all([
    outbox.settleBatch(a.lease, [{ entry: a.entries[0]!, settlement: { outcome: 'delivered' } }]),
    outbox.settleBatch(b.lease, [{ entry: b.entries[0]!, settlement: { outcome: 'delivered' } }])
  ])
  await blockedOnALock(pool, schema, 2)
  await gate.query('COMMIT')
  await appended
  await commit.query('COMMIT')
  t.same(await settled, [true, true], 'the settle went through')
  t.same((await outbox.due(Date.now() + 1000, 10)).sort(), ['P:a', 'P:b'], 'both stay due: P:a for a2, P:b for the appended event')
  const { rows } = await pool.query(`SELECT id FROM ${s}.outbox ORDER BY seq`)
  t.same(rows.map((row) => row.id), ['a2', 'a3', 'b2'], 'the delivered events gone, the others kept')
})
