import type { Details } from './array-object.ts'

/** A payout to a recipient; amounts are integer minor units, like Payment. */
export class Payout {
  id?: string
  /** The gateway this payment goes through; set when it is prepared, read by back-office tools. */
  gatewayName = ''
  recipientId = ''
  recipientEmail = ''
  description = ''
  totalAmount = 0
  currencyCode = ''
  details: Details = {}
  createdAt?: string
  updatedAt?: string
}
