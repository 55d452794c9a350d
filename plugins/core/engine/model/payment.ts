import type { Details } from './array-object.ts'

/**
 * The generic payment record. `totalAmount` is an integer in the currency's minor units
 * (1234 with EUR is 12.34 EUR; 500 with JPY is 500 JPY): gateways format it with the
 * currency's ISO 4217 exponent, never with a hard-coded /100.
 */
export class Payment {
  /** Set by the storage on the first update. */
  id?: string
  /** The gateway this payment goes through; set when it is prepared, read by back-office tools. */
  gatewayName = ''
  number = ''
  description = ''
  clientEmail = ''
  clientId = ''
  totalAmount = 0
  currencyCode = ''
  /** Fields in the gateway's own format; `details.local` is never sent to a gateway. */
  details: Details = {}
  /** ISO 8601 times maintained by the storage. */
  createdAt?: string
  updatedAt?: string
}
