import { hash, randomFillSync } from 'node:crypto'

/*
 * Random bytes from a pool refilled 4 KiB at a time, as Node's own randomUUID() does: one
 * CSPRNG call per 128 tokens instead of one each. Every byte is handed out once.
 */
const POOL_SIZE = 4096
const pool = Buffer.alloc(POOL_SIZE)
let offset = POOL_SIZE

/** `size` random bytes as base64url, read straight from the pool (no Buffer view made for them). */
function randomBase64url (size: number): string {
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  const start = offset
  offset += size
  return pool.toString('base64url', start, offset)
}

/**
 * 32 random bytes, base64url without padding: 43 characters, 256 bits of entropy, after
 * an optional affinity tag (see affinityTag).
 */
export function generateTokenHash (tag = ''): string {
  return tag + randomBase64url(32)
}

/** Characters of the affinity tag at the start of a model's token hashes. */
export const AFFINITY_TAG_LENGTH = 8

/*
 * A checkout computes the same tag about six times across its three requests (its tokens,
 * the record key of each read and of the commit): a SHA-256 each was 3% of the server's CPU
 * under load. The tags of the payments in flight are kept; the tag is a pure function of
 * the identity, so a cached one is always the right one. Kept per model name, then per id:
 * a key joining the two was a new string to hash on every look-up, ~0.6 µs a tag.
 */
const RECENT_TAGS = 4096
/** Model names are the few storages' names; more than these (names made up by a caller) start the cache afresh. */
const MODEL_NAMES_KEPT = 32
const recentTags = new Map<string, Map<string, string>>()

/** 12 random bytes, base64url: 16 characters, for lock ids. */
export function generateLockId (): string {
  return randomBase64url(12)
}

/**
 * 8 characters derived from a model's identity, which start the hashes of its tokens: a
 * store that shards by key (Redis Cluster) reads it from a token hash alone and keeps the
 * token, the model and its claim in one shard, so a commit touching all three is atomic.
 * It adds nothing to a token's guessability: the 43 random characters after it do that.
 */
export function affinityTag (modelName: string, id: string): string {
  let tags = recentTags.get(modelName)
  if (tags === undefined) {
    if (recentTags.size >= MODEL_NAMES_KEPT) recentTags.clear()
    tags = new Map()
    recentTags.set(modelName, tags)
  }
  let tag = tags.get(id)
  if (tag === undefined) {
    // The one-shot hash(): createHash() builds a stream object per call, 2.5 µs against 0.9 µs.
    tag = hash('sha256', `${modelName}\n${id}`, 'base64url').slice(0, AFFINITY_TAG_LENGTH)
    // Bounded: the oldest entry goes (a Map iterates in insertion order), so memory stays flat.
    if (tags.size >= RECENT_TAGS) tags.delete(tags.keys().next().value as string)
    tags.set(id, tag)
  }
  return tag
}
