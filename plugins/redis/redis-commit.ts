import { errorCodes, valueAt, type OutboxRecord, type StagedWrite } from '../core/engine/index.ts'
import { COMMIT_SCRIPT, commitArguments, type CommitAnswer, type CommitScriptSet } from './commit-script.ts'
import { INDEX_SCRIPT } from './index-script.ts'
import { guarded, hashTag, type RedisClient } from './keys.ts'
import type { RedisStorage } from './redis-storage.ts'
import { defineScript } from './scripts.ts'

/*
 * A commit on Redis in two steps (see commit-script.ts and index-script.ts):
 *
 * 1. The records, used tokens and claim: one script per hash slot. A payment's record, its
 *    tokens and its claim share a tag, so the commit of one payment is one atomic script,
 *    on a single Redis and on a Cluster alike. On a Cluster, a commit touching several
 *    payments' slots (a custom flow) is checked whole first (claim and versions, writing
 *    nothing), then applied slot by slot, the claim's slot last: each slot all or nothing,
 *    and the claim held until the end.
 * 2. The list and the indexes, under each model's tag: the index entries of the new values
 *    are added beside step 1 (same round trip: both leave in one write), entries of values
 *    a record no longer has are removed once step 1 succeeded. Both are idempotent.
 * 3. A payment's facets (PaymentSearch, see redis-search.ts), under the model's tag too, once
 *    step 1 succeeded: not in step 1's script, because on a Cluster the record's slot is its
 *    payment's and a search must read every payment's facets in one slot. Each update is a
 *    compare-and-set on the facets read and keeps the newest record version's, so two commits'
 *    steps that cross leave the later one's. A process that dies between steps 1 and 3 leaves
 *    the payment's previous facets until its next write (or `paywire.reindexPayments()`).
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

/** The indexed values of a record, in the storage's index order ('' where none). */
function indexedValues (storage: RedisStorage<object>, record: Record<string, unknown> | null): string[] {
  return storage.indexes.map((field) => {
    const value = record === null ? undefined : valueAt(record, field)
    return typeof value === 'string' ? value : ''
  })
}

async function putIndexes (client: RedisClient, write: StagedWrite, adds: string[], removes: string[], mode: 'put' | 'delete'): Promise<void> {
  const storage = write.storage as unknown as RedisStorage<object>
  const index = defineScript<number>(client, 'paywireIndex', null, INDEX_SCRIPT)
  const keys = [storage.idsKey, storage.counterKey, ...adds, ...removes]
  await guarded(index(keys.length, ...keys, write.id, mode, adds.length))
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

/** Applies a commit whose writes are all RedisStorage writes on `client` (see the steps above). */
export async function commitOnRedis (client: RedisClient, commit: RedisCommit): Promise<void> {
  const parts = groups(client, commit)
  // Step 2's additions leave with step 1: an entry added for a write that then fails is
  // never answered (findBy checks records), and a missing one would hide a record.
  const speculative = commit.writes.map(async (write) => {
    if (write.record === null) return true
    const storage = write.storage as unknown as RedisStorage<object>
    const adds = indexedValues(storage, write.record).flatMap((value, i) => value === '' ? [] : [storage.indexKey(storage.indexes[i] as string, value)])
    return await putIndexes(client, write, adds, [], 'put').then(() => true, () => false)
  })
  const partitions = [...new Set((commit.events ?? []).map((event) => event.partition))]
  const markDue = partitions.length === 0 ? undefined : commit.markDue
  const marked = markDue?.(partitions).then(() => true, () => false)
  if (parts.length > 1) await Promise.all(parts.map((part) => run(client, commit, part, true)))
  const olds: string[][] = new Array(commit.writes.length)
  for (const part of parts) {
    const answer = await run(client, commit, part, false)
    let offset = 0
    for (const position of part.positions) {
      const storage = commit.writes[position]?.storage as unknown as RedisStorage<object>
      olds[position] = answer.slice(offset, offset + storage.indexes.length)
      offset += storage.indexes.length
    }
  }
  // A due mark that failed is sent again; if that fails too, the outbox's sweep finds the events.
  if (marked !== undefined && !await marked) await markDue?.(partitions).catch(() => {})
  // Never rejects: a failed addition is retried below, now that the record is stored.
  const added = await Promise.all(speculative)
  await Promise.all(commit.writes.map(async (write, position) => {
    const storage = write.storage as unknown as RedisStorage<object>
    const now = indexedValues(storage, write.record)
    const keyOf = (value: string, i: number) => value === '' ? [] : [storage.indexKey(storage.indexes[i] as string, value)]
    const removes = (olds[position] ?? []).flatMap((old, i) => old !== now[i] ? keyOf(old, i) : [])
    const retry = added[position] !== true
    if (write.record === null) return await putIndexes(client, write, [], removes, 'delete')
    if (removes.length > 0 || retry) await putIndexes(client, write, retry ? now.flatMap(keyOf) : [], removes, 'put')
  }))
  // The facets follow the stored records, never ahead of them (a refused commit leaves them as they were).
  await Promise.all(commit.writes.map((write) => (write.storage as unknown as RedisStorage<object>).search.apply(write)))
}
