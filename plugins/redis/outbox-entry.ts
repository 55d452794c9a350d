import type { OutboxEntry, OutboxRecord } from '../core/engine/index.ts'

/*
 * An event as its payment's outbox list keeps it: a header line of JSON (its id and type, and its
 * delivery state: attempts, dueAt, lastError after a failed attempt), a newline, then the event's
 * JSON exactly as the commit staged it. The event is encoded once, when described, and never
 * again: not escaped into the entry (which cost ~150 bytes per event sent to Redis) and not
 * unescaped when read; the dispatcher parses it once, to hand it to the handlers. The header is
 * what a reader needs without the event (the settle scripts check the head's id and read the next
 * head's dueAt from it). JSON never holds a raw newline, so the first one ends the header.
 *
 * Entries of the versions before were one JSON object with the event as an escaped string in
 * `json` (`{"id","type","json","attempts","dueAt","lastError"?}`): an upgrade can find them in a
 * list, so every reader still takes them (one line, no newline), and a retry rewrites one in
 * this form.
 */

/** A new event's entry, due at `dueAt`. */
export function outboxEntry (event: OutboxRecord, dueAt: number): string {
  return `${JSON.stringify({ id: event.id, type: event.type, attempts: 0, dueAt })}\n${event.json}`
}

/** The head's entry after a failed attempt: one attempt more, due again at `dueAt`. */
export function retriedEntry (entry: OutboxEntry, dueAt: number, error: string): string {
  return `${JSON.stringify({ id: entry.id, type: entry.type, attempts: entry.attempts + 1, dueAt, lastError: error })}\n${entry.json}`
}

/** An entry as stored (in either form) read back, with the partition whose list held it. */
export function readEntry (stored: string, partition: string): OutboxEntry {
  const cut = stored.indexOf('\n')
  if (cut === -1) return { ...JSON.parse(stored) as Omit<OutboxEntry, 'partition'>, partition }
  const entry = JSON.parse(stored.slice(0, cut)) as OutboxEntry
  entry.partition = partition
  entry.json = stored.slice(cut + 1)
  return entry
}

/** The Lua function the scripts read an entry's header with (either form). */
export const ENTRY_HEADER_LUA = `
local function header (entry)
  local cut = string.find(entry, '\\n', 1, true)
  if cut then return cjson.decode(string.sub(entry, 1, cut - 1)) end
  return cjson.decode(entry)
end`
