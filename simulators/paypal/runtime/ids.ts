import { randomBytes, randomInt, randomUUID } from 'node:crypto'

const UPPERCASE_ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'
const TOKEN_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

function randomFrom (alphabet: string, length: number): string {
  let text = ''
  for (let index = 0; index < length; index++) {
    text += alphabet.charAt(randomInt(alphabet.length))
  }
  return text
}

function uppercaseAlphanumeric (length: number): string {
  return randomFrom(UPPERCASE_ALPHANUMERIC, length)
}

// Formats follow paypal-wire §2.1/§2.3/§4: clients must not parse them, but realistic
// shapes catch clients that truncate or validate ids too strictly.
export const newPaymentId = (): string => `PAYID-${uppercaseAlphanumeric(24)}`
export const newExpressCheckoutToken = (): string => `EC-${uppercaseAlphanumeric(17)}`
export const newTransactionId = (): string => uppercaseAlphanumeric(17)
// PayPal's payer ids: 13 characters of `^[2-9A-HJ-NP-Z]{13}$` (no 0, 1, I or O), the `payer_id`
// pattern of checkout_orders_v2.json (https://developer.paypal.com/docs/api/orders/v2/#definition-payer).
const PAYER_ID_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ'
export const newPayerId = (): string => randomFrom(PAYER_ID_ALPHABET, 13)
export const newWebhookId = (): string => uppercaseAlphanumeric(17)
export const newAppId = (): string => `APP-${uppercaseAlphanumeric(17)}`
export const newDebugId = (): string => randomBytes(7).toString('hex').slice(0, 13)
export const newWebhookEventId = (): string => `WH-${uppercaseAlphanumeric(17)}-${uppercaseAlphanumeric(17)}`
export const newTransmissionId = (): string => randomUUID()
export const newCertificateId = (): string =>
  `CERT-${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}-${randomBytes(4).toString('hex')}`
export const newAccessToken = (): string => `A21AA${randomFrom(TOKEN_ALPHABET, 92)}`
export const newNonceSuffix = (): string => randomFrom(TOKEN_ALPHABET, 43)
