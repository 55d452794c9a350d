import { apiError } from './errors.ts'

// Issue texts as PayPal's v1 API words them in recorded responses (paypal-wire §2.1, §2.6).
export const REQUIRED_ISSUE = 'Required field missing'
export const INVALID_ISSUE = 'Value is invalid.'

export type JsonObject = Record<string, unknown>

export function isJsonObject (value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** An absent body counts as `{}`; any other non-object JSON is not a PayPal request. */
export function requestObject (body: unknown): JsonObject {
  if (body === undefined) return {}
  if (!isJsonObject(body)) throw apiError('MALFORMED_REQUEST')
  return body
}

export function isHttpUrl (value: unknown): value is string {
  return typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)
}
