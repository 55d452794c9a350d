import { randomFillSync } from 'node:crypto'

/*
 * Random bytes from a pool refilled 4 KiB at a time, as Node's own randomUUID() does: one
 * CSPRNG call per 128 tokens instead of one each. Every byte is handed out once.
 */
const POOL_SIZE = 4096
const pool = Buffer.alloc(POOL_SIZE)
let offset = POOL_SIZE

function randomSlice (size: number): Buffer {
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  const slice = pool.subarray(offset, offset + size)
  offset += size
  return slice
}

/** 32 random bytes, base64url without padding: 43 characters, 256 bits of entropy. */
export function generateTokenHash (): string {
  return randomSlice(32).toString('base64url')
}

/** 12 random bytes, base64url: 16 characters, for lock ids. */
export function generateLockId (): string {
  return randomSlice(12).toString('base64url')
}
