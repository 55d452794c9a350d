import { PaymentStateReader, type HumanStatusValue, type PaymentState } from '../../plugins/core/engine/index.ts'
import { OfflineField, OfflineStatus } from './constants.ts'

const STATUSES: Readonly<Record<string, HumanStatusValue>> = {
  [OfflineStatus.PENDING]: 'pending',
  [OfflineStatus.AUTHORIZED]: 'authorized',
  [OfflineStatus.CAPTURED]: 'captured',
  [OfflineStatus.PAYEDOUT]: 'payedout',
  [OfflineStatus.REFUNDED]: 'refunded',
  [OfflineStatus.CANCELED]: 'canceled'
}

/** An offline payment's state from its stored details (a Payment's `details`, or a details record's `data`), as StatusAction reads it. */
export class OfflineStateReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState | undefined {
    const details = (record.details ?? record.data) as Record<string, unknown> | undefined
    if (typeof details !== 'object' || details === null) return undefined
    const stored = details[OfflineField.STATUS]
    const status = stored === undefined || stored === null ? 'new' : STATUSES[stored as string] ?? 'unknown'
    const refunded = details[OfflineField.REFUNDED_AMOUNT]
    const total = typeof details.amount === 'number' ? details.amount : record.totalAmount
    const captured = status === 'captured' || status === 'refunded' ? total : 0
    return {
      status,
      amounts: { captured: typeof captured === 'number' ? captured : 0, refunded: typeof refunded === 'number' ? refunded : 0, reversed: 0 }
    }
  }
}
