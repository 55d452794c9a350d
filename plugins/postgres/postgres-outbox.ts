import type { Pool } from 'pg'
import {
  DEAD_EVENTS_KEPT, newClaimId,
  type DueBatches, type LeaseDueOptions, type Outbox, type OutboxBatch, type OutboxEntry, type OutboxLease, type OutboxRecord, type SettledEntry, type Settlement, hideConnection, tickBatches
} from '../core/engine/index.ts'
import { guarded, prepared, quoted, type Prepared } from './sql.ts'

interface Row {
  id: string
  partition: string
  type: string
  event: string
  attempts: number
  due_ms: string
  last_error: string | null
}

/** A batch waiting for the tick's settle statement. */
interface PendingSettle {
  lease: OutboxLease
  settled: readonly SettledEntry[]
}

interface Column {
  batch: number[]
  id: string[]
}

function entryOf (row: Row): OutboxEntry {
  return {
    id: row.id,
    partition: row.partition,
    type: row.type,
    json: row.event,
    attempts: row.attempts,
    dueAt: Number(row.due_ms),
    ...(row.last_error === null ? {} : { lastError: row.last_error })
  }
}

/**
 * The outbox in PostgreSQL (migration 2): the commit function inserts a commit's events in
 * its own transaction; a partition's head is its oldest event not dead. Leases are rows
 * that expire on the server's clock, like claims. Which partitions are due is read from the
 * due index (migration 6, due-migration.ts), which the settles keep in the same statement.
 */
export class PostgresOutbox implements Outbox {
  readonly pool: Pool
  readonly #s: string
  readonly #due: (values: unknown[]) => Prepared
  readonly #nextDueAt: (values: unknown[]) => Prepared
  readonly #leaseBatch: (values: unknown[]) => Prepared
  readonly #settleManyStatement: (values: unknown[]) => Prepared
  readonly #refreshDue: (values: unknown[]) => Prepared
  readonly #leaseDue: (values: unknown[]) => Prepared

  constructor (pool: Pool, schema: string) {
    this.pool = pool
    // Its options hold the server's password: out of inspect() and JSON of this object.
    hideConnection(this, 'pool')
    this.#s = quoted(schema)
    const s = this.#s
    // Both read the due index's btree: a few entries, however many events wait.
    this.#due = prepared(`SELECT partition FROM ${s}.outbox_due WHERE due_ms <= $1 ORDER BY due_ms LIMIT $2`)
    this.#nextDueAt = prepared(`SELECT min(due_ms) AS next FROM ${s}.outbox_due`)
    this.#leaseBatch = prepared(LEASE_BATCH(s))
    this.#settleManyStatement = prepared(SETTLE_MANY(s))
    this.#leaseDue = prepared(LEASE_DUE(s))
    this.#refreshDue = prepared(REFRESH_DUE(s))
  }

  async append (records: readonly OutboxRecord[]): Promise<void> {
    await guarded(this.pool.query(`INSERT INTO ${this.#s}.outbox (partition, id, type, event, due_ms)
      SELECT e->>'partition', e->>'id', e->>'type', e->>'json', (extract(epoch FROM clock_timestamp()) * 1000)::bigint
        FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS a(e, position) ORDER BY position`, [JSON.stringify(records)]))
  }

  async due (now: number, limit: number): Promise<string[]> {
    const { rows } = await guarded(this.pool.query<{ partition: string }>(this.#due([now, limit])))
    return rows.map((row) => row.partition)
  }

  async nextDueAt (): Promise<number | null> {
    const { rows } = await guarded(this.pool.query<{ next: string | null }>(this.#nextDueAt([])))
    return rows[0]?.next == null ? null : Number(rows[0].next)
  }

  async lease (partition: string, ttlMs: number): Promise<OutboxLease | null> {
    const id = newClaimId()
    const { rows } = await guarded(this.pool.query(`INSERT INTO ${this.#s}.outbox_leases (partition, id, expires_at)
      VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
      ON CONFLICT (partition) DO UPDATE SET id = EXCLUDED.id, expires_at = EXCLUDED.expires_at
        WHERE ${this.#s}.outbox_leases.expires_at <= clock_timestamp()
      RETURNING id`, [partition, id, ttlMs]))
    return rows.length === 1 ? { partition, id } : null
  }

  async renew (lease: OutboxLease, ttlMs: number): Promise<boolean> {
    const { rowCount } = await guarded(this.pool.query(`UPDATE ${this.#s}.outbox_leases SET expires_at = clock_timestamp() + $3 * interval '1 millisecond'
      WHERE partition = $1 AND id = $2 AND expires_at > clock_timestamp()`, [lease.partition, lease.id, ttlMs]))
    return rowCount === 1
  }

  async head (lease: OutboxLease): Promise<OutboxEntry | null> {
    const { rows } = await guarded(this.pool.query<Row>(`SELECT id, partition, type, event, attempts, due_ms, last_error FROM ${this.#s}.outbox
      WHERE partition = $1 AND dead_at IS NULL ORDER BY seq LIMIT 1`, [lease.partition]))
    return rows[0] === undefined ? null : entryOf(rows[0])
  }

  async settle (lease: OutboxLease, entry: OutboxEntry, settlement: Settlement): Promise<boolean> {
    const held = `md5(id) = md5($3) AND id = $3 AND partition = $1 AND dead_at IS NULL AND EXISTS (SELECT 1 FROM ${this.#s}.outbox_leases l
      WHERE l.partition = $1 AND l.id = $2 AND l.expires_at > clock_timestamp())`
    const values = [lease.partition, lease.id, entry.id]
    let changed: number | null
    if (settlement.outcome === 'delivered') {
      changed = (await guarded(this.pool.query(`DELETE FROM ${this.#s}.outbox WHERE ${held}`, values))).rowCount
    } else if (settlement.outcome === 'retry') {
      changed = (await guarded(this.pool.query(`UPDATE ${this.#s}.outbox SET attempts = attempts + 1, due_ms = $4, last_error = $5 WHERE ${held}`,
        [...values, settlement.dueAt, settlement.error]))).rowCount
    } else {
      changed = (await guarded(this.pool.query(`UPDATE ${this.#s}.outbox SET attempts = attempts + 1, last_error = $4, dead_at = clock_timestamp() WHERE ${held}`,
        [...values, settlement.error]))).rowCount
      await this.#trimDead()
    }
    // One event at a time is not the hot path (batches are): the due index follows in a statement of its own.
    if (changed === 1) await guarded(this.pool.query(this.#refreshDue([lease.partition])))
    return changed === 1
  }

  /** Only the newest dead events are kept. */
  async #trimDead (): Promise<void> {
    await guarded(this.pool.query(`DELETE FROM ${this.#s}.outbox WHERE dead_at IS NOT NULL AND seq NOT IN
      (SELECT seq FROM ${this.#s}.outbox WHERE dead_at IS NOT NULL ORDER BY dead_at DESC, seq DESC LIMIT $1)`, [DEAD_EVENTS_KEPT]))
  }

  /**
   * One statement: the lease taken (as lease() does) and the partition's first events read, or
   * no row when another holds it. The events are read FOR UPDATE: the statement's snapshot may
   * predate the settle of the dispatcher whose lease it waited for, and a locking read sees
   * what that settle did (delivered events gone, a retry's new due time) where a plain read
   * would deliver them again.
   */
  async leaseBatch (partition: string, ttlMs: number, limit: number): Promise<OutboxBatch | null> {
    const id = newClaimId()
    const { rows } = await guarded(this.pool.query<Row & { id: string | null }>(this.#leaseBatch([partition, id, ttlMs, limit])))
    if (rows.length === 0) return null
    // A lease on an empty partition is one row of nulls.
    return { lease: { partition, id }, entries: rows.filter((row) => row.id !== null).map(entryOf) }
  }

  /** One statement: the due partitions read from the due index, each free one leased, and the first events of each read. */
  async leaseDue (now: number, { scan, limit, include, ttlMs, batch }: LeaseDueOptions): Promise<DueBatches> {
    const id = newClaimId()
    const { rows } = await guarded(this.pool.query<Row & { due: number, leased: string | null, id: string | null }>(
      this.#leaseDue([now, scan, include, limit, id, ttlMs, batch])))
    const batches = new Map<string, OutboxBatch>()
    for (const row of rows) {
      if (row.leased === null) continue
      let leased = batches.get(row.leased)
      if (leased === undefined) batches.set(row.leased, leased = { lease: { partition: row.leased, id }, entries: [] })
      // A lease on an empty partition is one row of nulls.
      if (row.id !== null) leased.entries.push(entryOf(row))
    }
    return { batches: [...batches.values()], more: rows[0]?.due === scan }
  }

  /**
   * One statement for every batch settled in the same tick (a dispatcher's pass starts its
   * payments together, and their handlers mostly end together too): each lease released if
   * still held, and only for those the delivered events deleted, the dead ones marked, the
   * retried one rescheduled. The dead ones over DEAD_EVENTS_KEPT are trimmed by a second
   * statement, only when some died. Events dead in one batch share their time: the later event
   * (higher seq) reads as the newer, as one at a time would have it. The partitions' due rows
   * follow in the same statement (SETTLE_MANY).
   */
  async settleBatch (lease: OutboxLease, settled: readonly SettledEntry[]): Promise<boolean> {
    return await this.#settleSoon({ lease, settled })
  }

  readonly #settleSoon = tickBatches(async (settling: PendingSettle[]) => {
    const held = await this.#settleMany(settling)
    return settling.map((_, at) => held.has(at + 1))
  })

  async #settleMany (settling: readonly PendingSettle[]): Promise<Set<number>> {
    // Per settled event, the position (from 1) of its batch: a batch counts only if its lease was still held.
    const delivered: Column = { batch: [], id: [] }
    const dead: Column & { error: string[] } = { batch: [], id: [], error: [] }
    const retried: Column & { dueAt: number[], error: string[] } = { batch: [], id: [], dueAt: [], error: [] }
    settling.forEach(({ settled }, at) => {
      for (const { entry, settlement } of settled) {
        if (settlement.outcome === 'delivered') {
          delivered.batch.push(at + 1)
          delivered.id.push(entry.id)
        } else if (settlement.outcome === 'dead') {
          dead.batch.push(at + 1)
          dead.id.push(entry.id)
          dead.error.push(settlement.error)
        } else {
          retried.batch.push(at + 1)
          retried.id.push(entry.id)
          retried.dueAt.push(settlement.dueAt)
          retried.error.push(settlement.error)
        }
      }
    })
    const { rows } = await guarded(this.pool.query<{ held: number[] }>(this.#settleManyStatement([
      settling.map(({ lease }) => lease.partition), settling.map(({ lease }) => lease.id),
      delivered.batch, delivered.id, dead.batch, dead.id, dead.error, retried.batch, retried.id, retried.dueAt, retried.error])))
    const held = new Set(rows[0]?.held ?? [])
    if (dead.batch.some((batch) => held.has(batch))) await this.#trimDead()
    return held
  }

  async release (lease: OutboxLease): Promise<void> {
    await guarded(this.pool.query(`DELETE FROM ${this.#s}.outbox_leases WHERE partition = $1 AND id = $2`, [lease.partition, lease.id]))
  }

  async dead (limit = DEAD_EVENTS_KEPT): Promise<OutboxEntry[]> {
    const { rows } = await guarded(this.pool.query<Row>(`SELECT id, partition, type, event, attempts, due_ms, last_error FROM ${this.#s}.outbox
      WHERE dead_at IS NOT NULL ORDER BY dead_at DESC, seq DESC LIMIT $1`, [limit]))
    return rows.map(entryOf)
  }

  /** At most DEAD_EVENTS_KEPT rows are dead: counting them stays small. */
  async deadCount (): Promise<number> {
    const { rows } = await guarded(this.pool.query<{ count: string }>(`SELECT count(*) AS count FROM ${this.#s}.outbox WHERE dead_at IS NOT NULL`))
    return Number(rows[0]?.count)
  }
}

function LEASE_BATCH (s: string): string {
  return `WITH leased AS (
        INSERT INTO ${s}.outbox_leases (partition, id, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
        ON CONFLICT (partition) DO UPDATE SET id = EXCLUDED.id, expires_at = EXCLUDED.expires_at
          WHERE ${s}.outbox_leases.expires_at <= clock_timestamp()
        RETURNING partition
      )
      SELECT o.id, o.partition, o.type, o.event, o.attempts, o.due_ms, o.last_error FROM leased l
        LEFT JOIN LATERAL (SELECT * FROM ${s}.outbox WHERE partition = l.partition AND dead_at IS NULL ORDER BY seq LIMIT $4 FOR UPDATE) o ON true
      ORDER BY o.seq`
}

/*
 * $1 now, $2 how many due to read, $3 partitions to try besides, $4 how many to lease, $5 the
 * lease id, $6 its ms, $7 events per partition. This process's own partitions first, then the
 * oldest due; leased in the partitions' order, so two dispatchers never wait on each other's
 * leases in opposite orders (a deadlock).
 */
function LEASE_DUE (s: string): string {
  return `WITH due AS (
        SELECT partition, due_ms FROM ${s}.outbox_due WHERE due_ms <= $1 ORDER BY due_ms LIMIT $2
      ), picked AS (
        SELECT partition FROM (SELECT partition, due_ms FROM due UNION ALL SELECT p, -1 FROM unnest($3::text[]) AS i(p)) c
          GROUP BY partition ORDER BY min(due_ms) LIMIT $4
      ), leased AS (
        INSERT INTO ${s}.outbox_leases (partition, id, expires_at)
          SELECT partition, $5, clock_timestamp() + $6 * interval '1 millisecond' FROM picked ORDER BY partition
        ON CONFLICT (partition) DO UPDATE SET id = EXCLUDED.id, expires_at = EXCLUDED.expires_at
          WHERE ${s}.outbox_leases.expires_at <= clock_timestamp()
        RETURNING partition
      )
      SELECT c.due, x.leased, x.id, x.partition, x.type, x.event, x.attempts, x.due_ms, x.last_error
        FROM (SELECT count(*)::int AS due FROM due) c
        LEFT JOIN (
          SELECT l.partition AS leased, o.id, o.partition, o.type, o.event, o.attempts, o.due_ms, o.last_error, o.seq FROM leased l
            LEFT JOIN LATERAL (SELECT * FROM ${s}.outbox WHERE partition = l.partition AND dead_at IS NULL ORDER BY seq LIMIT $7 FOR UPDATE) o ON true
        ) x ON true
      ORDER BY x.leased, x.seq`
}

/*
 * $1, $2: each batch's partition and lease id (a batch is its position in them, from 1); then
 * per event its batch and id: $3, $4 delivered; $5, $6, $7 dead, with the error; $8–$11
 * retried, with the due time and the error (at most one per batch, its last). Only the
 * batches whose lease is still held change anything; their due rows are written in the
 * partitions' order, as LEASE_DUE takes leases, so two dispatchers never wait on each other.
 */
function SETTLE_MANY (s: string): string {
  return `WITH held AS (
      DELETE FROM ${s}.outbox_leases l USING unnest($1::text[], $2::text[]) WITH ORDINALITY AS b(partition, id, batch)
        WHERE l.partition = b.partition AND l.id = b.id AND l.expires_at > clock_timestamp() RETURNING b.batch::int AS batch, l.partition
    ), delivered AS (
      DELETE FROM ${s}.outbox o USING held h, unnest($3::int[], $4::text[]) AS d(batch, id)
        WHERE d.batch = h.batch AND o.partition = h.partition AND o.dead_at IS NULL AND o.id = d.id RETURNING 1
    ), died AS (
      UPDATE ${s}.outbox o SET attempts = o.attempts + 1, last_error = d.error, dead_at = statement_timestamp()
        FROM held h, unnest($5::int[], $6::text[], $7::text[]) AS d(batch, id, error)
        WHERE d.batch = h.batch AND o.partition = h.partition AND o.dead_at IS NULL AND o.id = d.id RETURNING 1
    ), retry AS (
      SELECT h.partition, r.id, r.due_ms, r.error FROM held h JOIN unnest($8::int[], $9::text[], $10::bigint[], $11::text[]) AS r(batch, id, due_ms, error) ON r.batch = h.batch
    ), retried AS (
      UPDATE ${s}.outbox o SET attempts = o.attempts + 1, due_ms = r.due_ms, last_error = r.error
        FROM retry r WHERE o.partition = r.partition AND o.dead_at IS NULL AND o.id = r.id RETURNING 1
    ), gone AS (
      SELECT h.partition, g.id FROM held h JOIN unnest($3::int[] || $5::int[], $4::text[] || $6::text[]) AS g(batch, id) ON g.batch = h.batch
    ), head AS (
      -- The first waiting event this statement's snapshot sees that the settle did not remove, due when it is (a retried head: its new time).
      SELECT h.partition, CASE WHEN o.id = r.id THEN r.due_ms ELSE o.due_ms END AS due_ms FROM held h
        CROSS JOIN LATERAL (SELECT o.id, o.due_ms FROM ${s}.outbox o WHERE o.partition = h.partition AND o.dead_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM gone g WHERE g.partition = o.partition AND g.id = o.id) ORDER BY o.seq LIMIT 1) o
        LEFT JOIN retry r ON r.partition = h.partition
    ), seen AS (
      SELECT d.partition, d.gen FROM ${s}.outbox_due d JOIN held h ON h.partition = d.partition
    ), locked AS (
      -- The due rows locked first, all of them, in the partitions' order, as a commit's append
      -- (the outbox trigger) takes them: moved and emptied then wait on no row, whichever of
      -- the two runs first. Only the locks are used: seen keeps the gen this snapshot read.
      SELECT d.partition FROM ${s}.outbox_due d JOIN held h ON h.partition = d.partition ORDER BY d.partition FOR UPDATE OF d
    ), moved AS (
      INSERT INTO ${s}.outbox_due AS d (partition, due_ms, gen) SELECT partition, due_ms, nextval('${s}.outbox_due_gen') FROM head
        WHERE (SELECT count(*) FROM locked) >= 0 ORDER BY partition
        ON CONFLICT (partition) DO UPDATE SET due_ms = EXCLUDED.due_ms WHERE d.due_ms <> EXCLUDED.due_ms RETURNING 1
    ), emptied AS (
      -- No head, and the row goes, but only at the gen this snapshot read: an append meanwhile moved it (see due-migration.ts).
      DELETE FROM ${s}.outbox_due d USING seen WHERE d.partition = seen.partition AND d.gen = seen.gen
        AND NOT EXISTS (SELECT 1 FROM head WHERE head.partition = seen.partition) AND (SELECT count(*) FROM locked) >= 0 RETURNING 1
    )
    SELECT coalesce(array_agg(batch), ARRAY[]::int[]) AS held FROM held`
}

/**
 * One event at a time (settle()): the partition's due row set in a statement of its own once
 * the settle committed. The head is the first waiting event; no head, and the row goes, but
 * only at the `gen` this snapshot read: an append meanwhile moved it (see due-migration.ts).
 */
function REFRESH_DUE (s: string): string {
  return `WITH head AS (
      SELECT o.due_ms FROM ${s}.outbox o WHERE o.partition = $1 AND o.dead_at IS NULL ORDER BY o.seq LIMIT 1
    ), seen AS (
      SELECT gen FROM ${s}.outbox_due WHERE partition = $1
    ), moved AS (
      INSERT INTO ${s}.outbox_due AS d (partition, due_ms, gen) SELECT $1, h.due_ms, nextval('${s}.outbox_due_gen') FROM head h
        ON CONFLICT (partition) DO UPDATE SET due_ms = EXCLUDED.due_ms WHERE d.due_ms <> EXCLUDED.due_ms RETURNING 1
    ), emptied AS (
      DELETE FROM ${s}.outbox_due d USING seen WHERE d.partition = $1 AND d.gen = seen.gen AND NOT EXISTS (SELECT 1 FROM head) RETURNING 1
    )
    SELECT 1`
}
