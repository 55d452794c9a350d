/*
 * Acme, the payment provider of the migration example: what both versions of its gateway
 * share. Only how the factory is written (and how actions get the API) differs between
 * v1/ (the 1.x style) and v2/ (migrated by the six rules of MIGRATION.md).
 */
import { providerError, type HttpClientResponse } from 'paywire/engine'

export const AcmeField = {
  CHARGE_ID: 'acme_charge_id',
  STATUS: 'acme_status',
  REFUNDED_AMOUNT: 'refunded_amount'
} as const

export const AcmeStatus = {
  CAPTURED: 'captured',
  REFUNDED: 'refunded'
} as const

export interface AcmeCharge {
  id: string
  status: string
}

export function acmeUrl (sandbox: boolean, path: string): string {
  return `${sandbox ? 'https://sandbox.acme.example' : 'https://api.acme.example'}${path}`
}

export function acmeHeaders (clientId: string, clientSecret: string): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    'content-type': 'application/json'
  }
}

/** The JSON body of a successful call; a provider error (never the raw body) otherwise. */
export function readAcmeResponse (response: HttpClientResponse): Record<string, unknown> {
  const body = JSON.parse(response.body === '' ? '{}' : response.body) as Record<string, unknown>
  if (response.statusCode >= 400) {
    throw providerError({
      provider: 'Acme',
      providerCode: typeof body.error === 'string' ? body.error : `HTTP_${response.statusCode}`,
      message: typeof body.message === 'string' ? body.message : `HTTP status ${response.statusCode}`
    })
  }
  return body
}
