/*
 * Migration 6: the outbox's due index. Before it, due() and nextDueAt() took each
 * partition's head with a DISTINCT ON over every waiting event, once per dispatcher pass:
 * a cost that grew with the backlog. outbox_due holds one row per partition with events
 * waiting, its head's due time, btree-indexed, so both read a few index entries.
 *
 * Who keeps it:
 * - every insert into the outbox (the commit function's, append()'s, any other), by a
 *   statement trigger, in the inserting transaction: a new partition's row, due now; a
 *   partition with a row keeps its due time (the head is older than the new events and
 *   governs) but takes a new `gen`, which also locks the row until that transaction ends;
 * - the settles (postgres-outbox.ts), under the partition's lease: the row follows the new
 *   head (a retry's due time), or goes when no event waits. The delete only matches the
 *   `gen` the settle's snapshot read: a commit appending to the partition meanwhile holds the
 *   row (the settle waits, then sees a new gen and keeps the row) or committed already (the
 *   settle sees its event). A row left behind that way is due at once: the next pass leases
 *   the partition, finds what waits or nothing, and its settle sets the row right.
 * Rows for events already waiting are built here from the heads, once.
 */
export function dueMigration (s: string): string {
  return `
CREATE SEQUENCE ${s}.outbox_due_gen;
CREATE TABLE ${s}.outbox_due (
  partition text PRIMARY KEY,
  due_ms bigint NOT NULL,
  gen bigint NOT NULL
);
CREATE INDEX outbox_due_at ON ${s}.outbox_due (due_ms);

INSERT INTO ${s}.outbox_due (partition, due_ms, gen)
  SELECT partition, due_ms, nextval('${s}.outbox_due_gen') FROM (
    SELECT DISTINCT ON (partition) partition, due_ms FROM ${s}.outbox WHERE dead_at IS NULL ORDER BY partition, seq
  ) heads;

CREATE FUNCTION ${s}.paywire_outbox_due() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- In partition order, so two transactions appending to the same partitions lock them in the same order.
  INSERT INTO ${s}.outbox_due AS d (partition, due_ms, gen)
    SELECT partition, min(due_ms), nextval('${s}.outbox_due_gen') FROM appended
      WHERE dead_at IS NULL GROUP BY partition ORDER BY partition
    ON CONFLICT (partition) DO UPDATE SET gen = EXCLUDED.gen;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER outbox_due AFTER INSERT ON ${s}.outbox REFERENCING NEW TABLE AS appended
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.paywire_outbox_due();`
}
