import { createHmac } from 'node:crypto'

/**
 * The `Stripe-Signature` header (https://docs.stripe.com/webhooks#verify-manually): `t=<unix
 * seconds>` then one `v1=` per signing secret, each the hex HMAC-SHA256 of `<t>.<raw body>`
 * keyed with the endpoint's secret. While a rolled secret is still valid, Stripe signs with both.
 */
export function signatureHeader (payload: string, secrets: readonly string[], timestamp: number): string {
  const signed = `${timestamp}.${payload}`
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(signed).digest('hex')}`)
  return [`t=${timestamp}`, ...signatures].join(',')
}
