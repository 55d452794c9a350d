/** Fields of an offline payment's details. */
export const OfflineField = {
  /** false simulates a payment that has not arrived yet (pending). Defaults to true. */
  PAID: 'paid',
  /** false simulates a payout that has not been sent yet (pending). Defaults to true. */
  PAYOUT: 'payout',
  STATUS: 'status',
  REFUNDED_AMOUNT: 'refunded_amount'
} as const

export const OfflineStatus = {
  PENDING: 'pending',
  AUTHORIZED: 'authorized',
  CAPTURED: 'captured',
  PAYEDOUT: 'payedout',
  REFUNDED: 'refunded',
  CANCELED: 'canceled'
} as const
