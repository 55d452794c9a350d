/*
 * The second step of a write: a model's creation-ordered list and its indexes. They live
 * under the model's own hash tag (`<p>ids:{Payment}`, `<p>index:{Payment}:number:A-1`), so
 * one script updates them on a Redis Cluster too, apart from the record's slot. The step is
 * idempotent (the same call twice leaves the same entries) and runs after the record's
 * commit, or — adding only — beside the first write of a new record. An index may therefore
 * hold, for a moment or after a failed commit, an id whose record does not (or no longer)
 * match: findBy() reads the records and checks them, so such an entry is never answered.
 *
 *   KEYS: ids, counter, then the index keys to add the id to, then those to remove it from
 *   ARGV: id, 'put' or 'delete', number of keys to add to
 */
export const INDEX_SCRIPT = `
local id, mode, adds = ARGV[1], ARGV[2], tonumber(ARGV[3])
local score = redis.call('ZSCORE', KEYS[1], id)
if mode == 'delete' then
  redis.call('ZREM', KEYS[1], id)
elseif not score then
  score = redis.call('INCR', KEYS[2])
  redis.call('ZADD', KEYS[1], score, id)
end
for i = 3, 2 + adds do redis.call('ZADD', KEYS[i], score, id) end
for i = 3 + adds, #KEYS do redis.call('ZREM', KEYS[i], id) end
return 1`
