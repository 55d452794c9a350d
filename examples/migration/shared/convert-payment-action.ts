import { ArrayObject, Convert, Payment, type Action } from 'paywire/engine'

/** Payment → Acme details; needs no API, so it is the same in both versions. */
export class ConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment && request.to === 'array'
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    request.result = new ArrayObject({ ...payment.details })
      .defaults({ amount: payment.totalAmount, currency: payment.currencyCode, description: payment.description })
      .data
  }
}
