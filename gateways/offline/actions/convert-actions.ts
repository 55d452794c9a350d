import { ArrayObject, Convert, Payment, PayoutModel, type Action } from '../../../plugins/core/engine/index.ts'
import { OfflineField } from '../constants.ts'

/** Payment → offline details. Values already in the details win, so `paid: false` set by the shop is kept. */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    const details = new ArrayObject({ ...payment.details })
    details.defaults({
      amount: payment.totalAmount,
      currency: payment.currencyCode,
      number: payment.number,
      description: payment.description,
      client_email: payment.clientEmail,
      client_id: payment.clientId,
      [OfflineField.PAID]: true
    })
    request.result = details.data
  }
}

export class ConvertPayoutAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof PayoutModel && request.to === 'array'
  }

  execute (request: Convert): void {
    const payout = request.source as PayoutModel
    const details = new ArrayObject({ ...payout.details })
    details.defaults({
      amount: payout.totalAmount,
      currency: payout.currencyCode,
      description: payout.description,
      recipient_email: payout.recipientEmail,
      recipient_id: payout.recipientId,
      [OfflineField.PAYOUT]: true
    })
    request.result = details.data
  }
}
