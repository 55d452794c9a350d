import { randomBytes } from 'node:crypto'

/** 32 random bytes, base64url without padding: 43 characters, 256 bits of entropy. */
export function generateTokenHash (): string {
  return randomBytes(32).toString('base64url')
}
