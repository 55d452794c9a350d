import { errorCodes, valueAt, type OutboxRecord, type StagedWrite } from '../core/engine/index.ts'
import { COMMIT_SCRIPT, commitArguments, type CommitAnswer, type CommitScriptSet, type TokenToSave } from './commit-script.ts'
import { COMMIT_WITH_STEPS_SCRIPT, commitWithStepsArguments } from './commit-with-steps.ts'
import { commandTimeoutOf, guarded, hashTag, type RedisClient } from './keys.ts'
import type { RedisStorage } from './redis-storage.ts'
import { defineScript } from './scripts.ts'
import { sendStep, stepArguments, type Step, type StepAnswer, type StepFacets } from './step-script.ts'

/*
 * A commit on Redis in two steps (see commit-script.ts and step-script.ts):
 *
 * 1. The records, used tokens, new tokens and claim: one script per hash slot. A payment's record, its
 *    tokens and its claim share a tag, so the commit of one payment is one atomic script,
 *    on a single Redis and on a Cluster alike. On a Cluster, a commit touching several
 *    payments' slots (a custom flow) is checked whole first (claim and versions, writing
 *    nothing), then applied slot by slot, the claim's slot last: each slot all or nothing,
 *    and the claim held until the end.
 * 2. Per record, STEP_SCRIPT on keys under its model's tag: the model's list, the index entries
 *    of the values the write adds and drops and, for a payment, its search facets
 *    (redis-search.ts). On a Cluster a script of its own, apart from step 1's: the record's slot
 *    is its payment's, and a search or a findBy() must read every record's entries in one slot.
 *
 * On a single Redis the two steps are one script (commit-with-steps.ts): step 1's checks and
 * writes, then each write's step 2, run only when step 1's checks passed. A refused commit moves
 * no index entry and no facets, and no command of another connection runs between the record
 * and its entries. The values the write drops are known before the commit's answer: the record
 * it replaces is the one it was read as (`previous`, at the version it expects). What the script
 * could not know (a deleted record's values, a record replaced since it was read under the same
 * version) and a step that raised an error in the script follow in a step of their own, once the
 * commit answered.
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
  const whole: Group = { set: commit, positions: upTo(commit.writes.length) }
  if (!client.isCluster) return [whole]
  const byTag = new Map<string, { writes: StagedWrite[], tokens: string[], saves: TokenToSave[], positions: number[], claim: boolean, events: OutboxRecord[] }>()
  const of = (key: string) => {
    const tag = hashTag(key)
    let group = byTag.get(tag)
    if (group === undefined) byTag.set(tag, group = { writes: [], tokens: [], saves: [], positions: [], claim: false, events: [] })
    return group
  }
  commit.writes.forEach((write, position) => {
    const group = of((write.storage as unknown as RedisStorage<object>).recordKey(write.id))
    group.writes.push(write)
    group.positions.push(position)
  })
  for (const hash of commit.invalidateTokens) of(commit.tokenKeyOf(hash)).tokens.push(hash)
  for (const token of commit.saveTokens ?? []) of(commit.tokenKeyOf(token.hash)).saves.push(token)
  for (const event of commit.events ?? []) of((commit.outboxKeyOf as (partition: string) => string)(event.partition)).events.push(event)
  if (commit.claim !== undefined) of(commit.claim.key).claim = true
  if (byTag.size === 1) return [whole]
  // The claim's slot goes last, so the claim is held (and checked) until every other slot is written.
  return [...byTag.values()].sort((a, b) => Number(a.claim) - Number(b.claim)).map((group) => ({
    positions: group.positions,
    set: {
      writes: group.writes,
      invalidateTokens: group.tokens,
      saveTokens: group.saves,
      tombstoneTtlMs: commit.tombstoneTtlMs,
      claim: group.claim ? commit.claim : undefined,
      releaseClaim: group.claim && commit.releaseClaim,
      events: group.events,
      outboxKeyOf: commit.outboxKeyOf
    }
  }))
}

/*
 * The arrays that pass between this file's functions are built by push(), not map(): V8's
 * optimized map() makes a holey array where the interpreter's makes a packed one, so a caller
 * changing tier handed its callees arrays of another map, and their optimized code was thrown
 * away ("wrong map") and compiled again, over and over while the server was under load.
 */

/** 0, 1, … n - 1. */
function upTo (n: number): number[] {
  const positions: number[] = []
  for (let i = 0; i < n; i++) positions.push(i)
  return positions
}

/** A part's script and what it answered: the old indexed values, and each step's answer when the steps went with it. */
interface Ran { olds: string[], steps: Array<StepAnswer | undefined> }

/**
 * Sends a part's commit; with `steps` (a single Redis), the one script that runs each write's step
 * (undefined: none) once the commit's checks passed and its writes are done (commit-with-steps.ts).
 */
async function run (client: RedisClient, commit: RedisCommit, group: Group, checkOnly: boolean, steps?: Array<Step | undefined>): Promise<Ran> {
  const call = commitArguments(group.set, commit.tokenKeyOf, checkOnly)
  const sent: Array<{ position: number, step: Step }> = []
  const sentArguments: Array<ReturnType<typeof stepArguments>> = []
  steps?.forEach((step, position) => {
    if (step === undefined) return
    sent.push({ position, step })
    sentArguments.push(stepArguments((commit.writes[position]?.storage as unknown as RedisStorage<object>).search.stepKeys, step))
  })
  const script = defineScript<CommitAnswer>(client, null,
    steps === undefined ? COMMIT_SCRIPT : COMMIT_WITH_STEPS_SCRIPT)
  const { keys, args } = steps === undefined ? call : commitWithStepsArguments(call, sentArguments)
  const answer = await guarded(script(keys.length, ...keys, ...args), commandTimeoutOf(client))
  if (answer[0] === 'claim_lost') throw new errorCodes.PAYWIRE_ERR_CLAIM_LOST(commit.claim?.key ?? '')
  if (answer[0] === 'token_used') throw new errorCodes.PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT()
  if (answer[0] === 'conflict') {
    const write = commit.writes[group.positions[answer[1] - 1] as number] as StagedWrite
    throw write.storage.conflict(write.id)
  }
  const olds = answer.slice(1, answer.length - sent.length) as string[]
  const answers: Array<StepAnswer | undefined> = new Array(commit.writes.length)
  sent.forEach(({ position }, n) => {
    const applied = answer[answer.length - sent.length + n] as unknown as number
    // -1: the step raised an error in the script; it is sent again on its own.
    answers[position] = applied === -1 ? undefined : applied as StepAnswer
  })
  return { olds, steps: answers }
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
  const values: string[] = []
  for (const field of storage.indexes) {
    const value = record == null ? undefined : valueAt(record, field)
    values.push(typeof value === 'string' ? value : '')
  }
  return values
}

function indexKeys (storage: RedisStorage<object>, values: string[], positions: number[]): string[] {
  const keys: string[] = []
  for (const i of positions) {
    if (values[i] !== '') keys.push(storage.indexKey(storage.indexes[i] as string, values[i] as string))
  }
  return keys
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
  const positions = upTo(storage.indexes.length)
  const changed: number[] = []
  const kept: number[] = []
  for (const i of positions) {
    if (was === undefined || was[i] !== now[i]) changed.push(i)
    else kept.push(i)
  }
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

/** Step 2 in the one script of a single Redis: the whole step, run only once step 1 passed (a delete's waits for step 1's answer). */
function withCommit ({ write, adds, heals, removes, version, facets }: Plan): Step | undefined {
  if (write.record === null) return undefined
  return { id: write.id, version, adds, heals, removes, list: 'put', ...(facets === undefined ? {} : { facets }) }
}

/** On a Cluster, what of step 2 leaves beside step 1: the index entries the write adds (never behind the record). */
async function early (client: RedisClient, { write, storage, adds, version, facets }: Plan): Promise<StepAnswer | undefined> {
  if (write.record === null) return undefined
  // A payment whose step lists and heals it after the commit need not be listed ahead when it adds no value.
  if (adds.length === 0 && facets !== undefined) return undefined
  return await sendStep(client, storage.search.stepKeys, { id: write.id, version, adds, heals: [], removes: [], list: 'put' })
}

/** What step 2 still has to do once step 1 answered the values the record had (`olds`), after `sent` answered. */
function rest (client: RedisClient, { write, now, adds, heals, removes, version, facets, storage }: Plan, olds: string[], sent: StepAnswer | undefined): Step | undefined {
  const positions: number[] = []
  for (let i = 0; i < olds.length; i++) {
    if (olds[i] !== now[i]) positions.push(i)
  }
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
  const plans: Plan[] = []
  for (const write of commit.writes) plans.push(plan(write))
  const partitions = [...new Set((commit.events ?? []).map((event) => event.partition))]
  const markDue = partitions.length === 0 ? undefined : commit.markDue
  const marked = markDue?.(partitions).then(() => true, () => false)
  let answers: Array<StepAnswer | undefined>
  const olds: string[][] = new Array(commit.writes.length)
  const keep = (part: Group, answer: string[]) => {
    let offset = 0
    for (const position of part.positions) {
      const storage = commit.writes[position]?.storage as unknown as RedisStorage<object>
      olds[position] = answer.slice(offset, offset + storage.indexes.length)
      offset += storage.indexes.length
    }
  }
  if (!client.isCluster) {
    // One part, one script: the commit, then each write's step.
    const steps: Array<Step | undefined> = []
    for (const step of plans) steps.push(withCommit(step))
    const ran = await run(client, commit, parts[0] as Group, false, steps)
    keep(parts[0] as Group, ran.olds)
    answers = ran.steps
  } else {
    if (parts.length > 1) await Promise.all(parts.map((part) => run(client, commit, part, true)))
    // Never rejects: a step that failed is sent again below, once the commit landed.
    const sent = plans.map(async (step) => await early(client, step).catch(() => undefined))
    for (const part of parts) keep(part, (await run(client, commit, part, false)).olds)
    answers = await Promise.all(sent)
  }
  // A due mark that failed is sent again; if that fails too, the outbox's sweep finds the events.
  if (marked !== undefined && !await marked) await markDue?.(partitions).catch(() => {})
  // Mostly nothing is left (the steps ran in the commit's script): no promise then.
  const left: Array<Step | undefined> = []
  plans.forEach((step, position) => { left.push(rest(client, step, olds[position] as string[], answers[position])) })
  if (left.every((step) => step === undefined)) return
  await Promise.all(left.map(async (step, position) => {
    if (step !== undefined) await sendStep(client, (plans[position] as Plan).storage.search.stepKeys, step)
  }))
}
