import { createHash } from 'node:crypto'
import { errorCodes, valueAt, type OutboxRecord, type StagedWrite } from '../core/engine/index.ts'
import { COMMIT_SCRIPT, commitArguments, type CommitAnswer, type CommitScriptSet } from './commit-script.ts'
import { encodeRecord, guarded, hashTag, type RedisClient } from './keys.ts'
import type { RedisStorage } from './redis-storage.ts'
import { defineScript } from './scripts.ts'
import { sendStep, type Step, type StepAnswer, type StepFacets } from './step-script.ts'

/*
 * A commit on Redis in two steps (see commit-script.ts and step-script.ts):
 *
 * 1. The records, used tokens and claim: one script per hash slot. A payment's record, its
 *    tokens and its claim share a tag, so the commit of one payment is one atomic script,
 *    on a single Redis and on a Cluster alike. On a Cluster, a commit touching several
 *    payments' slots (a custom flow) is checked whole first (claim and versions, writing
 *    nothing), then applied slot by slot, the claim's slot last: each slot all or nothing,
 *    and the claim held until the end.
 * 2. Per record, one script under its model's tag: the model's list, the index entries of the
 *    values the write adds and drops and, for a payment, its search facets (redis-search.ts).
 *    Not in step 1's script, because on a Cluster the record's slot is its payment's, and a
 *    search or a findBy() must read every record's entries in one slot.
 *
 * On a single Redis, step 2 leaves in the same write as step 1, right behind it: one round trip
 * per write. Redis runs a connection's commands in order, so it runs once step 1 has, and it
 * checks that the record holds exactly what this write stored (its SHA-1) before it changes
 * anything: a refused commit leaves it doing nothing. The values the write drops are known
 * before the commit's answer: the record it replaces is the one it was read as (`previous`,
 * at the version it expects). What is still a window: step 2 is a second script, so a Redis
 * that dies between the two scripts (or another connection's command run between them) may see
 * step 1 without step 2; a process that dies after sending the write can no longer split them.
 * When step 2 did not apply though step 1 did (refused, failed, or the record already written
 * again), it is sent again once step 1 answered, as on a Cluster.
 *
 * On a Cluster step 2 follows step 1's answer; only the index entries the write adds leave
 * beside step 1 (an entry added for a write that then fails is never answered, as findBy()
 * checks records; a missing one would hide a record). Each step is a compare-and-set on the
 * facets' record version and keeps the newest, so two writes' steps that cross leave the later
 * one's. A process that dies between steps 1 and 2 leaves the previous facets and entries until
 * the payment's next write, whose step then heals them (or `paywire.reindexPayments()`).
 */

export interface RedisCommit extends CommitScriptSet {
  tokenKeyOf: (hash: string) => string
  /**
   * On a Cluster, where the due index is in a slot of its own: marks the events' partitions
   * due, sent beside the script and again after it if that failed (the outbox's sweep finds
   * any it still missed).
   */
  markDue?: (partitions: string[]) => Promise<void>
}

interface Group {
  set: CommitScriptSet
  /** The positions of the group's writes in the whole commit. */
  positions: number[]
}

/** The commit's parts by hash slot (by hash tag: keys sharing one share a slot); one group on a single Redis. */
function groups (client: RedisClient, commit: RedisCommit): Group[] {
  const whole: Group = { set: commit, positions: commit.writes.map((_, index) => index) }
  if (!client.isCluster) return [whole]
  const byTag = new Map<string, { writes: StagedWrite[], tokens: string[], positions: number[], claim: boolean, events: OutboxRecord[] }>()
  const of = (key: string) => {
    const tag = hashTag(key)
    let group = byTag.get(tag)
    if (group === undefined) byTag.set(tag, group = { writes: [], tokens: [], positions: [], claim: false, events: [] })
    return group
  }
  commit.writes.forEach((write, position) => {
    const group = of((write.storage as unknown as RedisStorage<object>).recordKey(write.id))
    group.writes.push(write)
    group.positions.push(position)
  })
  for (const hash of commit.invalidateTokens) of(commit.tokenKeyOf(hash)).tokens.push(hash)
  for (const event of commit.events ?? []) of((commit.outboxKeyOf as (partition: string) => string)(event.partition)).events.push(event)
  if (commit.claim !== undefined) of(commit.claim.key).claim = true
  if (byTag.size === 1) return [whole]
  // The claim's slot goes last, so the claim is held (and checked) until every other slot is written.
  return [...byTag.values()].sort((a, b) => Number(a.claim) - Number(b.claim)).map((group) => ({
    positions: group.positions,
    set: {
      writes: group.writes,
      invalidateTokens: group.tokens,
      tombstoneTtlMs: commit.tombstoneTtlMs,
      claim: group.claim ? commit.claim : undefined,
      releaseClaim: group.claim && commit.releaseClaim,
      events: group.events,
      outboxKeyOf: commit.outboxKeyOf
    }
  }))
}

async function run (client: RedisClient, commit: RedisCommit, group: Group, checkOnly: boolean): Promise<string[]> {
  const script = defineScript<CommitAnswer>(client, 'paywireCommit', null, COMMIT_SCRIPT)
  const { keys, args } = commitArguments({ ...group.set, checkOnly }, commit.tokenKeyOf)
  const answer = await guarded(script(keys.length, ...keys, ...args))
  if (answer[0] === 'claim_lost') throw new errorCodes.PAYWIRE_ERR_CLAIM_LOST(commit.claim?.key ?? '')
  if (answer[0] === 'token_used') throw new errorCodes.PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT()
  if (answer[0] === 'conflict') {
    const write = commit.writes[group.positions[answer[1] - 1] as number] as StagedWrite
    throw write.storage.conflict(write.id)
  }
  return answer.slice(1) as string[]
}

/** A write's step 2, planned before step 1's answer from the record it replaces. */
interface Plan {
  write: StagedWrite
  storage: RedisStorage<object>
  /** The record's indexed values, in the storage's index order ('' where none). */
  now: string[]
  /** Index keys to add the id to: the values the write changes (every value, for a record without facets). */
  adds: string[]
  /** Index keys of the values it keeps: added only when the previous version's step did not run. */
  heals: string[]
  /** Index keys of the values it drops (known only when it replaces the record it read). */
  removes: string[]
  version: number
  facets?: StepFacets
}

/** The indexed values of a record, in the storage's index order ('' where none). */
function indexedValues (storage: RedisStorage<object>, record: Record<string, unknown> | null | undefined): string[] {
  return storage.indexes.map((field) => {
    const value = record == null ? undefined : valueAt(record, field)
    return typeof value === 'string' ? value : ''
  })
}

function indexKeys (storage: RedisStorage<object>, values: string[], positions: number[]): string[] {
  return positions.flatMap((i) => values[i] === '' ? [] : [storage.indexKey(storage.indexes[i] as string, values[i] as string)])
}

function without (keys: readonly string[], done: readonly string[]): string[] {
  return keys.filter((key) => !done.includes(key))
}

function plan (write: StagedWrite): Plan {
  const storage = write.storage as unknown as RedisStorage<object>
  const version = Math.max(write.expectedVersion, 0) + 1
  const now = indexedValues(storage, write.record)
  // If the commit lands, it replaced the record this model was read as (the version it expects); a new record replaces none.
  const was = write.expectedVersion === 0 ? indexedValues(storage, null) : write.expectedVersion > 0 && write.previous != null ? indexedValues(storage, write.previous) : undefined
  const positions = storage.indexes.map((_, i) => i)
  const changed = positions.filter((i) => was === undefined || was[i] !== now[i])
  const kept = positions.filter((i) => !changed.includes(i))
  const facets = write.record === null || write.facets === undefined ? undefined : storage.search.stepFacets(write.facets, version, true)
  return {
    write,
    storage,
    now,
    // Without facets there is no mark of what the previous step did: every value is added again (idempotent).
    adds: indexKeys(storage, now, facets === undefined ? positions : changed),
    heals: facets === undefined ? [] : indexKeys(storage, now, kept),
    removes: was === undefined ? [] : indexKeys(storage, was, changed),
    version,
    ...(facets === undefined ? {} : { facets })
  }
}

/** Step 2 sent beside step 1: the whole step behind the commit on a single Redis, the additions only on a Cluster. */
async function early (client: RedisClient, { write, storage, adds, heals, removes, version, facets }: Plan): Promise<StepAnswer | undefined> {
  if (write.record === null || write.json === null) return undefined
  if (!client.isCluster) {
    const sha1 = createHash('sha1').update(encodeRecord(version, write.json)).digest('hex')
    const check = { key: storage.recordKey(write.id), sha1 }
    return await sendStep(client, storage.search.stepKeys, { id: write.id, version, check, adds, heals, removes, list: 'put', ...(facets === undefined ? {} : { facets }) })
  }
  // A payment whose step lists and heals it after the commit need not be listed ahead when it adds no value.
  if (adds.length === 0 && facets !== undefined) return undefined
  return await sendStep(client, storage.search.stepKeys, { id: write.id, version, adds, heals: [], removes: [], list: 'put' })
}

/** What step 2 still has to do once step 1 answered the values the record had (`olds`), after `sent` answered. */
function rest (client: RedisClient, { write, now, adds, heals, removes, version, facets, storage }: Plan, olds: string[], sent: StepAnswer | undefined): Step | undefined {
  const positions = olds.map((_, i) => i).filter((i) => olds[i] !== now[i])
  const needed = { adds: indexKeys(storage, now, positions), removes: indexKeys(storage, olds, positions) }
  if (write.record === null) return { id: write.id, version, adds: [], heals: [], removes: needed.removes, list: 'delete', facets: null }
  if (sent === 2) return undefined
  if (sent === 1 && !client.isCluster) {
    // Applied: only what the read record did not tell (a record replaced since it was read under the same version) is left.
    const missing = { adds: without(needed.adds, adds), removes: without(needed.removes, removes) }
    if (missing.adds.length === 0 && missing.removes.length === 0) return undefined
    return { id: write.id, version, adds: missing.adds, heals: [], removes: missing.removes, list: '' }
  }
  const added = sent === 1 ? adds : []
  const all = without([...new Set([...adds, ...needed.adds])], added)
  const step: Step = {
    id: write.id,
    version,
    adds: all,
    heals: without(heals, [...all, ...added]),
    removes: [...new Set([...removes, ...needed.removes])],
    // Listed by the additions sent beside the commit, else here.
    list: sent === 1 ? '' : 'put',
    ...(facets === undefined ? {} : { facets })
  }
  const idle = facets === undefined && step.list === '' && step.adds.length === 0 && step.removes.length === 0
  return idle ? undefined : step
}

/** Applies a commit whose writes are all RedisStorage writes on `client` (see the steps above). */
export async function commitOnRedis (client: RedisClient, commit: RedisCommit): Promise<void> {
  const parts = groups(client, commit)
  const plans = commit.writes.map(plan)
  const partitions = [...new Set((commit.events ?? []).map((event) => event.partition))]
  const markDue = partitions.length === 0 ? undefined : commit.markDue
  const marked = markDue?.(partitions).then(() => true, () => false)
  if (parts.length > 1) await Promise.all(parts.map((part) => run(client, commit, part, true)))
  // On a single Redis there is one part: its script is issued first, each step right behind it, in the
  // same write. On a Cluster the additions are issued first, as they must never be behind the record.
  const single = !client.isCluster
  const first = single ? run(client, commit, parts[0] as Group, false) : undefined
  // Never rejects: a step that failed is sent again below, once the commit landed.
  const sent = plans.map(async (step) => await early(client, step).catch(() => undefined))
  const olds: string[][] = new Array(commit.writes.length)
  for (const [n, part] of parts.entries()) {
    const answer = n === 0 && first !== undefined ? await first : await run(client, commit, part, false)
    let offset = 0
    for (const position of part.positions) {
      const storage = commit.writes[position]?.storage as unknown as RedisStorage<object>
      olds[position] = answer.slice(offset, offset + storage.indexes.length)
      offset += storage.indexes.length
    }
  }
  // A due mark that failed is sent again; if that fails too, the outbox's sweep finds the events.
  if (marked !== undefined && !await marked) await markDue?.(partitions).catch(() => {})
  const answers = await Promise.all(sent)
  await Promise.all(plans.map(async (step, position) => {
    const left = rest(client, step, olds[position] as string[], answers[position])
    if (left !== undefined) await sendStep(client, step.storage.search.stepKeys, left)
  }))
}
