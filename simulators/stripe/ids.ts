import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Stripe-shaped ids: a type prefix and 24 base62 characters (`pi_3MtwBwLkdIwHu7ix28a3tqPa`). */
export function newId (prefix: string, length = 24): string {
  const bytes = randomBytes(length)
  let out = ''
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
  return `${prefix}_${out}`
}

/** `cs_test_…`: Checkout Session ids carry the mode (https://docs.stripe.com/api/checkout/sessions/object). */
export function newSessionId (): string {
  return newId('cs_test', 58)
}

/** `whsec_…`: webhook signing secrets (https://docs.stripe.com/api/webhook_endpoints/object). */
export function newWebhookSecret (): string {
  return `whsec_${randomBytes(24).toString('hex')}`
}
