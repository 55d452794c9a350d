import type { OutboxRecord, StagedWrite } from '../core/engine/index.ts'
import { outboxEntry } from './outbox-entry.ts'
import type { RedisStorage } from './redis-storage.ts'

/*
 * One request's commit as one script, so it happens all or nothing: first every check
 * (the claim is still the request's, every record still has the version it was read
 * with, no token to use up was used by another request), then every write (records, used
 * tokens, events, new tokens, the claim's release). Nothing is written
 * unless every check passed. Under maxmemory, Redis refuses a script's first write and lets
 * the ones after it through, so a commit is refused whole, never half.
 *
 * Every key it touches is in KEYS, and a payment's record, tokens and claim share a hash
 * tag, so on a Redis Cluster the commit of one payment is one script on its slot. The
 * creation-ordered list, the indexes and the search facets live elsewhere (see step-script.ts):
 * the script answers the indexed values the records had, so the caller can move the index entries.
 *
 * The events the writes make go into their payment's outbox list (same tag) in the same
 * script: the transactional outbox. On a single Redis the due index is in the script too;
 * on a Cluster it lives in another slot and is written beside it (see redis-outbox.ts).
 *
 * A prepared payment's tokens (Paywire.prepareCapture) are saved by the script of its first
 * write: a token and its payment share a hash tag too, so they are stored all or nothing.
 *
 *   KEYS: [claim], then per write its record, then the tokens to use up, then per event its
 *         outbox list, then the tokens to save, then [the due index]
 *   ARGV: writes, tokens, has claim (1/0), release claim (1/0), used-token lifetime (ms),
 *         claim id, check only (1/0), events, due index in KEYS (1/0), now (ms), tokens to
 *         save; then per write: json ('' deletes), expected version (-1: any), number of
 *         indexed fields, the fields; then per event: its partition, its outbox entry (outbox-entry.ts); then per
 *         token to save: its JSON, its lifetime (ms, 0: no expiry)
 *   Answers {'ok', <per write and field, the old value or ''>...}, {'conflict', n} (the n-th
 *   write's version moved on), {'claim_lost'} or {'token_used'}. With "check only", nothing is written.
 *
 * Records are "<version> <json>" (plain JSON: version 1).
 */
export const COMMIT_SCRIPT = `
local function at(record, path)
  local value = record
  for part in string.gmatch(path, '[^.]+') do
    if type(value) ~= 'table' then return '' end
    -- JSON arrays decode to Lua lists, so "items.0" (as JavaScript reads it) is items[1].
    local position = tonumber(part)
    if value[part] == nil and position then value = value[position + 1] else value = value[part] end
  end
  if type(value) == 'string' then return value end
  return ''
end
local function decode(stored)
  if not stored then return 0, nil end
  if string.sub(stored, 1, 1) == '{' then return 1, stored end
  local space = string.find(stored, ' ', 1, true)
  return tonumber(string.sub(stored, 1, space - 1)), string.sub(stored, space + 1)
end

local writes, tokens = tonumber(ARGV[1]), tonumber(ARGV[2])
local hasClaim, release, usedTtl, claimId = ARGV[3] == '1', ARGV[4] == '1', tonumber(ARGV[5]), ARGV[6]
local checkOnly = ARGV[7] == '1'
local events, hasDue, now, saves = tonumber(ARGV[8]), ARGV[9] == '1', tonumber(ARGV[10]), tonumber(ARGV[11])
local k = 1
if hasClaim then
  if redis.call('GET', KEYS[1]) ~= claimId then return {'claim_lost'} end
  k = 2
end

local planned = {}
local a = 12
for w = 1, writes do
  local fields = {}
  for f = 1, tonumber(ARGV[a + 2]) do fields[f] = ARGV[a + 2 + f] end
  local write = { key = KEYS[k], json = ARGV[a], expected = tonumber(ARGV[a + 1]), fields = fields }
  write.version, write.old = decode(redis.call('GET', write.key))
  if write.expected ~= -1 and write.version ~= write.expected then return {'conflict', w} end
  planned[w] = write
  a = a + 3 + #fields
  k = k + 1
end
-- Read once: the writes below use what the check read (nothing else runs in between).
local read = {}
for t = 1, tokens do
  local token = redis.call('GET', KEYS[k + t - 1])
  if token and string.sub(token, 1, 5) == 'used:' then return {'token_used'} end
  read[t] = token
end
if checkOnly then return {'ok'} end

local answer = {'ok'}
for w = 1, writes do
  local write = planned[w]
  if #write.fields > 0 then
    local before = write.old and cjson.decode(write.old) or {}
    for _, field in ipairs(write.fields) do answer[#answer + 1] = at(before, field) end
  end
  if write.json == '' then
    redis.call('DEL', write.key)
  else
    redis.call('SET', write.key, (math.max(write.expected, 0) + 1) .. ' ' .. write.json)
  end
end

for t = 1, tokens do
  local key, token = KEYS[k], read[t]
  if token then
    if usedTtl > 0 then redis.call('SET', key, 'used:' .. token, 'PX', usedTtl) else redis.call('SET', key, 'used:' .. token) end
  end
  k = k + 1
end

for e = 1, events do
  redis.call('RPUSH', KEYS[k], ARGV[a + 1])
  if hasDue then redis.call('ZADD', KEYS[#KEYS], 'NX', now, ARGV[a]) end
  a = a + 2
  k = k + 1
end

for s = 1, saves do
  local ttl = tonumber(ARGV[a + 1])
  if ttl > 0 then redis.call('SET', KEYS[k], ARGV[a], 'PX', ttl) else redis.call('SET', KEYS[k], ARGV[a]) end
  a = a + 2
  k = k + 1
end

if hasClaim and release then redis.call('DEL', KEYS[1]) end
return answer`

/** A token as the commit script stores it (RedisTokenStorage.toSave). */
export interface TokenToSave {
  hash: string
  json: string
  /** 0: no expiry. */
  ttlMs: number
}

export type CommitAnswer = ['ok', ...string[]] | ['conflict', number] | ['claim_lost'] | ['token_used']

export interface CommitScriptSet {
  writes: readonly StagedWrite[]
  /** Hashes of the tokens to use up. */
  invalidateTokens: readonly string[]
  /** How long a used token is remembered (ms, 0: until deleted). */
  tombstoneTtlMs: number
  claim?: { key: string, id: string }
  releaseClaim: boolean
  /** New tokens to store with the writes (a prepared payment's). */
  saveTokens?: readonly TokenToSave[]
  /** Events to append to their payments' outbox lists. */
  events?: readonly OutboxRecord[]
  /** The outbox's list key of a partition, and its due index when the script may write it (single Redis). */
  outboxKeyOf?: (partition: string) => string
  dueKey?: string
}

/**
 * The script's KEYS and ARGV for a commit; every write's storage is a RedisStorage. `checkOnly`:
 * check the claim and the versions, write nothing.
 */
export function commitArguments (set: CommitScriptSet, tokenKeyOf: (hash: string) => string, checkOnly = false): { keys: string[], args: Array<string | number> } {
  const keys: string[] = []
  const events = set.events ?? []
  const now = Date.now()
  const args: Array<string | number> = [set.writes.length, set.invalidateTokens.length, set.claim === undefined ? 0 : 1,
    set.releaseClaim ? 1 : 0, set.tombstoneTtlMs, set.claim?.id ?? '', checkOnly ? 1 : 0,
    events.length, set.dueKey === undefined ? 0 : 1, now, set.saveTokens?.length ?? 0]
  if (set.claim !== undefined) keys.push(set.claim.key)
  for (const write of set.writes) {
    const storage = write.storage as unknown as RedisStorage<object>
    keys.push(storage.recordKey(write.id))
    args.push(write.json ?? '', write.expectedVersion, storage.indexes.length, ...storage.indexes)
  }
  for (const hash of set.invalidateTokens) keys.push(tokenKeyOf(hash))
  for (const event of events) {
    keys.push((set.outboxKeyOf as (partition: string) => string)(event.partition))
    args.push(event.partition, outboxEntry(event, now))
  }
  for (const token of set.saveTokens ?? []) {
    keys.push(tokenKeyOf(token.hash))
    args.push(token.json, token.ttlMs)
  }
  if (set.dueKey !== undefined && events.length > 0) keys.push(set.dueKey)
  return { keys, args }
}
