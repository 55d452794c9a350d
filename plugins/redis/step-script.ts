import { guarded, type RedisClient } from './keys.ts'
import { defineScript } from './scripts.ts'

/*
 * The second step of a write: a model's creation-ordered list, its findBy() indexes and, for a
 * payment, its search facets (redis-search.ts), in one script. Every key it touches lives under
 * the model's own hash tag (`<p>ids:{Payment}`, `<p>index:{Payment}:number:A-1`,
 * `<p>search:{Payment}:…`), so one script updates them on a Redis Cluster too, apart from the
 * record's slot. redis-commit.ts says when it runs: on a single Redis right behind the commit
 * script, in the same write, on a Cluster once the commit succeeded (and its list and index
 * additions beside the commit).
 *
 * Only what changes is written. Index entries are added for the values the write changes, and
 * removed for the values it drops; the values it keeps are already indexed when the step of the
 * version it replaces ran, which the stored facets tell (`w`: the record version whose step put
 * them, with every index entry of that version): otherwise (that step failed, the payment has no
 * facets yet, or is no payment) the step heals, adding every value the record has. A payment's
 * member moves only between the sets whose name changed (a capture: one ZREM, one ZADD), and the
 * attention set is touched only when the payment's attentionAt changed.
 *
 * Facets of a newer record version than the step's (two writes' steps crossed on a Cluster, or a
 * late retry) are kept, and the step then changes nothing at all: the newer step healed the
 * indexes. With a check, the step applies only while the record holds exactly what this write
 * committed (the SHA-1 of its stored "<version> <json>"): on a single Redis the step leaves with
 * the commit, before its answer, and must do nothing when the commit was refused — a version
 * alone would not tell, as a refused write's version may be the one another writer stored.
 *
 *   KEYS: ids, counter, facets hash, attention set, [the record, with a check], then the index
 *         keys to add the id to, those to add it to when healing, those to remove it from, then
 *         the sets of the new facets (created first)
 *   ARGV: id, record version, check ('' none), adds, heals, removes, list ('put': list the id;
 *         'delete': unlist it; '': leave the list, but for a score to add with), facets ('' left as
 *         they are, '-' removed, else the JSON), member, attentionAt ('' none), its score, the
 *         search keys' prefix
 *   Answers 1 (applied), 0 (the record is not this write's: nothing done) or 2 (facets of a
 *   newer version are stored: nothing done).
 */
export const STEP_SCRIPT = `
local id, version, check = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local adds, heals, removes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local list, facets, member, attentionAt, score, prefix = ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12]
local k = 5
if check ~= '' then
  local stored = redis.call('GET', KEYS[5])
  if not stored or redis.sha1hex(stored) ~= check then return 0 end
  k = 6
end

local old
if facets ~= '' then
  local stored = redis.call('HGET', KEYS[3], id)
  if stored then old = cjson.decode(stored) end
  if old and facets ~= '-' and old.v > version then return 2 end
end

local healing = facets == '' or not old or old.w ~= version - 1
local last = k + adds - 1
if healing then last = last + heals end
if list == 'delete' then
  redis.call('ZREM', KEYS[1], id)
elseif last >= k or (list == 'put' and healing) then
  local position = redis.call('ZSCORE', KEYS[1], id)
  if not position then
    position = redis.call('INCR', KEYS[2])
    redis.call('ZADD', KEYS[1], position, id)
  end
  for i = k, last do redis.call('ZADD', KEYS[i], position, id) end
end
k = k + adds + heals
for i = k, k + removes - 1 do redis.call('ZREM', KEYS[i], id) end
k = k + removes
if facets == '' then return 1 end

local kept = {}
if old then
  local was = old.createdAt .. '|' .. id
  local stays = {}
  if facets ~= '-' and was == member then for i = k, #KEYS do stays[KEYS[i]] = true end end
  local sets = {prefix .. 'created', prefix .. 'status:' .. old.status, prefix .. 'gateway:' .. old.gatewayName, prefix .. 'currency:' .. old.currencyCode}
  for _, provider in ipairs(old.providerIds) do sets[#sets + 1] = prefix .. 'provider:' .. provider end
  for _, set in ipairs(sets) do
    if stays[set] then kept[set] = true else redis.call('ZREM', set, was) end
  end
end
local attended = old and type(old.attentionAt) == 'string'
if facets == '-' then
  if old then redis.call('HDEL', KEYS[3], id) end
  if attended then redis.call('ZREM', KEYS[4], id) end
  return 1
end
for i = k, #KEYS do
  if not kept[KEYS[i]] then redis.call('ZADD', KEYS[i], 0, member) end
end
redis.call('HSET', KEYS[3], id, facets)
if attentionAt == '' then
  if attended then redis.call('ZREM', KEYS[4], id) end
elseif not attended or old.attentionAt ~= attentionAt then
  redis.call('ZADD', KEYS[4], score, id)
end
return 1`

/** What a step does; see STEP_SCRIPT. */
export interface Step {
  id: string
  /** The record version the step is for (the write's). */
  version: number
  /** The record key and the SHA-1 of what the write stored there: the step applies only while it is still there. */
  check?: { key: string, sha1: string }
  adds: readonly string[]
  heals: readonly string[]
  removes: readonly string[]
  list: 'put' | 'delete' | ''
  /** Absent: left as they are; null: removed. */
  facets?: StepFacets | null
}

export interface StepFacets {
  json: string
  member: string
  /** The sets the payment's member belongs in: the created set first. */
  sets: readonly string[]
  attentionAt?: string
}

/** The keys of the list and of the facets, shared by every step of a model. */
export interface StepKeys {
  ids: string
  counter: string
  facets: string
  attention: string
  searchPrefix: string
}

export type StepAnswer = 0 | 1 | 2

/** A step's KEYS and ARGV, as STEP_SCRIPT takes them (alone, or as a part of the one script of a commit on a single Redis). */
export function stepArguments (keys: StepKeys, step: Step): { keys: string[], args: Array<string | number> } {
  const facets = step.facets
  return {
    keys: [keys.ids, keys.counter, keys.facets, keys.attention, ...(step.check === undefined ? [] : [step.check.key]),
      ...step.adds, ...step.heals, ...step.removes, ...(facets == null ? [] : facets.sets)],
    args: [step.id, step.version, step.check?.sha1 ?? '', step.adds.length, step.heals.length, step.removes.length,
      step.list, facets === undefined ? '' : facets === null ? '-' : facets.json, facets?.member ?? '', facets?.attentionAt ?? '',
      facets?.attentionAt === undefined ? '' : Date.parse(facets.attentionAt), keys.searchPrefix]
  }
}

/** Sends a step: one EVALSHA, issued before this returns (so it leaves behind whatever was issued before it). */
export async function sendStep (client: RedisClient, keys: StepKeys, step: Step): Promise<StepAnswer> {
  const script = defineScript<StepAnswer>(client, null, STEP_SCRIPT)
  const call = stepArguments(keys, step)
  return await guarded(script(call.keys.length, ...call.keys, ...call.args))
}
