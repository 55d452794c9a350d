import { Generic } from './generic.ts'

export const HumanStatus = {
  NEW: 'new',
  CAPTURED: 'captured',
  AUTHORIZED: 'authorized',
  PAYEDOUT: 'payedout',
  REFUNDED: 'refunded',
  PENDING: 'pending',
  CANCELED: 'canceled',
  FAILED: 'failed',
  SUSPENDED: 'suspended',
  EXPIRED: 'expired',
  UNKNOWN: 'unknown'
} as const
export type HumanStatusValue = typeof HumanStatus[keyof typeof HumanStatus]
export const HUMAN_STATUSES: readonly HumanStatusValue[] = Object.values(HumanStatus)

export const BinaryStatus = {
  PENDING: 1024,
  NEW: 2,
  CAPTURED: 4,
  AUTHORIZED: 8,
  REFUNDED: 16,
  CANCELED: 32,
  EXPIRED: 2 ** 18,
  SUSPENDED: 2 ** 19,
  FAILED: 2 ** 20,
  UNKNOWN: 2 ** 21,
  PAYEDOUT: 2 ** 22
} as const

type StatusName = keyof typeof HumanStatus

const NAME_OF = Object.fromEntries(Object.entries(HumanStatus).map(([name, value]) => [value, name])) as Record<HumanStatusValue, StatusName>

/**
 * How much money moved, in the payment currency's minor units. The status says where a
 * payment is; the amounts say how far: a partially refunded payment is "refunded" with
 * refunded < captured.
 */
export interface PaymentAmounts {
  /** Taken from the payer. */
  captured: number
  /** Given back by refunds. */
  refunded: number
  /** Taken back by the payer's bank or the provider (reversals, chargebacks). */
  reversed: number
}

/**
 * The status contract gateway status actions write to: they call markX() and never read
 * the concrete value type, so one action serves GetHumanStatus and GetBinaryStatus.
 * A request that no action marks stays "unknown".
 */
export abstract class BaseGetStatus<V> extends Generic {
  value!: V
  /** Set by gateways that know how much moved (setAmounts); undefined otherwise. */
  amounts: PaymentAmounts | undefined = undefined

  constructor (model: unknown) {
    super(model)
    this.markUnknown()
  }

  protected abstract statusValue (name: StatusName): V
  protected abstract matches (name: StatusName): boolean

  markNew (): void { this.value = this.statusValue('NEW') }
  markCaptured (): void { this.value = this.statusValue('CAPTURED') }
  markAuthorized (): void { this.value = this.statusValue('AUTHORIZED') }
  markPayedout (): void { this.value = this.statusValue('PAYEDOUT') }
  markRefunded (): void { this.value = this.statusValue('REFUNDED') }
  markPending (): void { this.value = this.statusValue('PENDING') }
  markCanceled (): void { this.value = this.statusValue('CANCELED') }
  markFailed (): void { this.value = this.statusValue('FAILED') }
  markSuspended (): void { this.value = this.statusValue('SUSPENDED') }
  markExpired (): void { this.value = this.statusValue('EXPIRED') }
  markUnknown (): void { this.value = this.statusValue('UNKNOWN') }
  /** Marks the status a gateway's state reader gives (what markX() does for that name); an unknown value marks unknown. */
  mark (status: HumanStatusValue): void { this.value = this.statusValue(NAME_OF[status] ?? 'UNKNOWN') }

  /** Status actions that know the amounts set them beside the status; missing ones are 0. */
  setAmounts (amounts: Partial<PaymentAmounts>): void {
    this.amounts = { captured: amounts.captured ?? 0, refunded: amounts.refunded ?? 0, reversed: amounts.reversed ?? 0 }
  }

  isNew (): boolean { return this.matches('NEW') }
  isCaptured (): boolean { return this.matches('CAPTURED') }
  isAuthorized (): boolean { return this.matches('AUTHORIZED') }
  isPayedout (): boolean { return this.matches('PAYEDOUT') }
  isRefunded (): boolean { return this.matches('REFUNDED') }
  isPending (): boolean { return this.matches('PENDING') }
  isCanceled (): boolean { return this.matches('CANCELED') }
  isFailed (): boolean { return this.matches('FAILED') }
  isSuspended (): boolean { return this.matches('SUSPENDED') }
  isExpired (): boolean { return this.matches('EXPIRED') }
  isUnknown (): boolean { return this.matches('UNKNOWN') }
}

export class GetHumanStatus extends BaseGetStatus<HumanStatusValue> {
  protected statusValue (name: StatusName): HumanStatusValue {
    return HumanStatus[name]
  }

  protected matches (name: StatusName): boolean {
    return this.value === HumanStatus[name]
  }
}

export class GetBinaryStatus extends BaseGetStatus<number> {
  protected statusValue (name: StatusName): number {
    return BinaryStatus[name]
  }

  /** Payum's rule: the value's bits are a subset of the expected bits. */
  protected matches (name: StatusName): boolean {
    const expected = BinaryStatus[name]
    return (expected | this.value) === expected
  }
}
