import {
  ArrayObject, Authorize, Cancel, Capture, Payout, Refund, assertMinorUnits, errorCodes, type Action, type Generic
} from '../../../plugins/core/engine/index.ts'
import { OfflineField, OfflineStatus } from '../constants.ts'

abstract class OfflineAction<R extends Generic> implements Action {
  protected abstract readonly requestClass: abstract new (...args: any[]) => R

  supports (request: unknown): boolean {
    return request instanceof this.requestClass && request.model instanceof ArrayObject
  }

  execute (request: R): void {
    this.apply(request.model as ArrayObject, request)
  }

  protected abstract apply (details: ArrayObject, request: R): void
}

function status (details: ArrayObject): string | undefined {
  return details.get<string | undefined>(OfflineField.STATUS)
}

/**
 * A new, pending or authorized payment becomes captured when `paid`, else pending. A
 * payment that already moved on (captured, refunded, canceled) is left alone, so replaying
 * a capture never revives a refunded or canceled payment.
 */
export class CaptureAction extends OfflineAction<Capture> {
  protected readonly requestClass = Capture

  protected apply (details: ArrayObject): void {
    const current = status(details)
    if (current !== undefined && current !== OfflineStatus.PENDING && current !== OfflineStatus.AUTHORIZED) return
    details.set(OfflineField.STATUS, details.get(OfflineField.PAID) === true ? OfflineStatus.CAPTURED : OfflineStatus.PENDING)
  }
}

export class AuthorizeAction extends OfflineAction<Authorize> {
  protected readonly requestClass = Authorize

  protected apply (details: ArrayObject): void {
    const current = status(details)
    if (current !== undefined && current !== OfflineStatus.PENDING) return
    details.set(OfflineField.STATUS, details.get(OfflineField.PAID) === true ? OfflineStatus.AUTHORIZED : OfflineStatus.PENDING)
  }
}

export class PayoutAction extends OfflineAction<Payout> {
  protected readonly requestClass = Payout

  protected apply (details: ArrayObject): void {
    const current = status(details)
    if (current !== undefined && current !== OfflineStatus.PENDING) return
    details.set(OfflineField.STATUS, details.get(OfflineField.PAYOUT) === true ? OfflineStatus.PAYEDOUT : OfflineStatus.PENDING)
  }
}

/** Only a captured payment can be refunded; the refunded amount adds up over partial refunds. */
export class RefundAction extends OfflineAction<Refund> {
  protected readonly requestClass = Refund

  protected apply (details: ArrayObject, request: Refund): void {
    const current = status(details)
    if (current !== OfflineStatus.CAPTURED && current !== OfflineStatus.REFUNDED) return
    const total = details.get<number>('amount', 0)
    const alreadyRefunded = details.get<number>(OfflineField.REFUNDED_AMOUNT, 0)
    const amount = request.amount ?? total - alreadyRefunded
    assertMinorUnits(amount)
    if (alreadyRefunded + amount > total) throw new errorCodes.PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED(amount, total - alreadyRefunded)
    if (amount === 0) return
    details.set(OfflineField.REFUNDED_AMOUNT, alreadyRefunded + amount)
    details.set(OfflineField.STATUS, OfflineStatus.REFUNDED)
  }
}

/** A payment waiting for money, or only authorized, can be canceled. */
export class CancelAction extends OfflineAction<Cancel> {
  protected readonly requestClass = Cancel

  protected apply (details: ArrayObject): void {
    const current = status(details)
    if (current === OfflineStatus.PENDING || current === OfflineStatus.AUTHORIZED) {
      details.set(OfflineField.STATUS, OfflineStatus.CANCELED)
    }
  }
}
