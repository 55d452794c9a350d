/*
 * The REST details record: what the shop sends PayPal when it wants full control (the
 * spec's second preparation procedure). Field names are PayPal's, so the record is the
 * request body; PayPal's answer (id, state, links, related resources) is merged into it.
 */

export class Payer {
  payment_method = 'paypal'

  constructor (paymentMethod = 'paypal') {
    this.payment_method = paymentMethod
  }
}

export class Amount {
  /** ISO 4217 code. */
  currency: string
  /** Decimal string in PayPal's format ("19.99"; "500" for JPY). */
  total: string

  constructor (currency = '', total = '') {
    this.currency = currency
    this.total = total
  }
}

export class Transaction {
  amount: Amount
  description: string

  constructor (amount: Amount = new Amount(), description = '') {
    this.amount = amount
    this.description = description
  }
}

export class RedirectUrls {
  return_url: string
  cancel_url: string

  constructor (returnUrl = '', cancelUrl = '') {
    this.return_url = returnUrl
    this.cancel_url = cancelUrl
  }
}

/** Storage id property: PayPal's own `id` lives in the record, so the storage uses another one. */
export const PAYMENT_DETAILS_ID_PROPERTY = 'idStorage'

export class PaymentDetails {
  /** Set by the storage (see PAYMENT_DETAILS_ID_PROPERTY). */
  idStorage?: string
  intent = 'sale'
  payer: Payer = new Payer()
  redirect_urls: RedirectUrls = new RedirectUrls()
  transactions: Transaction[] = []
  /** PayPal's payment id, once created. */
  id?: string
  state?: string
  [field: string]: unknown

  /** Rebuilds the nested objects after a storage round trip. */
  static fromJSON (json: Record<string, any>): PaymentDetails {
    const details = Object.assign(new PaymentDetails(), json)
    if (json.payer !== undefined) details.payer = Object.assign(new Payer(), json.payer)
    if (json.redirect_urls !== undefined) details.redirect_urls = Object.assign(new RedirectUrls(), json.redirect_urls)
    if (Array.isArray(json.transactions)) {
      details.transactions = json.transactions.map((transaction: Record<string, any>) =>
        Object.assign(new Transaction(), transaction, { amount: Object.assign(new Amount(), transaction.amount) }))
    }
    return details
  }

  toJSON (): Record<string, unknown> {
    return { ...this }
  }
}
