/**
 * A payment a buyer can dispute: a Payments v1 sale or a Payments v2 capture. Each API registers a
 * lookup, so the Disputes API finds them by id without importing either.
 */
export interface DisputableTransaction {
  /** The seller's transaction id: the sale's or the capture's. */
  id: string
  clientId: string
  currency: string
  /** The transaction's gross amount, in minor units. */
  amountMinor: number
  createdAt: number
  invoiceNumber?: string
  custom?: string
  /** Money still with the seller: neither refunded nor taken back. */
  remainingMinor: () => number
  /** PayPal takes `amountMinor` back because the buyer won, with the API's own reversal webhook. */
  reverse: (amountMinor: number) => void
}

export type DisputableLookup = (transactionId: string) => DisputableTransaction | undefined

export interface DisputableRegistry {
  register: (lookup: DisputableLookup) => void
  find: DisputableLookup
}

export function createDisputableRegistry (): DisputableRegistry {
  const lookups: DisputableLookup[] = []
  return {
    register (lookup) {
      lookups.push(lookup)
    },
    find (transactionId) {
      for (const lookup of lookups) {
        const found = lookup(transactionId)
        if (found !== undefined) return found
      }
      return undefined
    }
  }
}
