import type { Link, SimulatorBuyer } from '../runtime/types.ts'

/** What happens to the money when the payment is executed. */
export type BuyerOutcome = 'completed' | 'pending' | 'declined'

export interface AmountResource {
  total: string
  currency: string
  details?: Record<string, string>
}

export interface SaleResource {
  id: string
  /** The sale states of payments_payment_v1.json: none for a reversal, which `reason_code` tells. */
  state: 'completed' | 'partially_refunded' | 'pending' | 'refunded' | 'denied'
  amount: AmountResource
  payment_mode: 'INSTANT_TRANSFER' | 'ECHECK'
  reason_code?: string
  clearing_time?: string
  protection_eligibility: 'ELIGIBLE'
  protection_eligibility_type: string
  transaction_fee: { value: string, currency: string }
  invoice_number?: string
  custom?: string
  soft_descriptor?: string
  parent_payment: string
  create_time: string
  update_time: string
  links: Link[]
}

export interface RefundResource {
  id: string
  /** The refund states of payments_payment_v1.json. */
  state: 'pending' | 'completed' | 'cancelled' | 'failed'
  amount: { total: string, currency: string }
  sale_id: string
  parent_payment: string
  total_refunded_amount: { value: string, currency: string }
  description?: string
  reason?: string
  invoice_number?: string
  create_time: string
  update_time: string
  links: Link[]
}

/**
 * The transaction that takes a reversed sale's money back (chargeback...), as `GET /v1/payments/refund/{id}`
 * (the self link of PAYMENT.SALE.REVERSED's resource) shows it: payments_payment_v1.json's `refund`
 * fields, its own id, a negative amount, state `completed`. PayPal documents no sample of this answer.
 */
export interface ReversalResource {
  id: string
  state: 'completed'
  amount: { total: string, currency: string }
  sale_id: string
  parent_payment: string
  create_time: string
  update_time: string
  links: Link[]
}

/**
 * PAYMENT.SALE.REVERSED's resource exactly as PayPal's sample event has it
 * (https://developer.paypal.com/api/rest/webhooks/event-names/#sales, WH-3EC545679X386831C-3D038940937933201):
 * id, create_time, state `completed`, the negative amount and a self link to `/v1/payments/refund/{id}`;
 * no `parent_payment`, `sale_id` or `reason_code`.
 */
export interface ReversalEventResource {
  id: string
  create_time: string
  state: 'completed'
  amount: { total: string, currency: string }
  links: Link[]
}

/** The sale `reason_code` values of PayPal's v1 spec that explain a reversal. */
export type ReversalReason = 'CHARGEBACK' | 'GUARANTEE' | 'BUYER_COMPLAINT' | 'REFUND'

export interface ReverseSaleOptions {
  /** Default `CHARGEBACK`. */
  reasonCode?: ReversalReason
  /** Minor units taken back; default all that was not refunded. */
  amountMinor?: number
}

export interface PayerInfoResource {
  email: string
  first_name: string
  last_name: string
  payer_id: string
  country_code: string
}

export interface PaymentResource {
  id: string
  intent: 'sale'
  state: 'created' | 'approved' | 'failed'
  failure_reason?: string
  cart: string
  payer: { payment_method: 'paypal', status?: 'VERIFIED', payer_info?: PayerInfoResource }
  transactions: Array<Record<string, unknown> & {
    amount: AmountResource
    related_resources?: Array<{ sale: SaleResource } | { refund: RefundResource }>
  }>
  note_to_payer?: string
  create_time: string
  update_time: string
  links: Link[]
}

export interface ApprovalResult {
  paymentId: string
  token: string
  payerId: string
  /** `return_url` with paymentId, token and PayerID appended, exactly as the buyer is redirected. */
  redirectUrl: string
}

export interface ApproveOptions {
  outcome?: BuyerOutcome
  buyer?: Partial<SimulatorBuyer>
}

declare module '../runtime/types.ts' {
  interface WebhookResources {
    payment: PaymentResource
    sale: SaleResource
    refund: RefundResource
    reversal: ReversalResource
    reversalEvent: ReversalEventResource
  }
}

/** How often each piece of Payments v1 work really ran (see `RuntimeCounters`). */
export interface PaymentsCounters {
  paymentsCreated: number
  /** Executes that reached the money movement, declined ones included. */
  paymentsExecuted: number
  /** Executes the buyer's instrument declined (also counted in `paymentsExecuted`). */
  paymentsDeclined: number
  /** Successful `PATCH /v1/payments/payment/{id}` calls. */
  paymentsUpdated: number
  refunds: number
  /** Sales reversed with `reverseSale`. */
  reversals: number
}

/** What tests drive Payments v1 with: its part of `app.simulator`. */
export interface PaymentsControl {
  approve: (paymentId: string, options?: ApproveOptions) => ApprovalResult
  /** The buyer cancels: returns `cancel_url` with `token` appended. */
  cancel: (paymentId: string) => string
  /** Overrides the buyer's choice for every later execute; `undefined` restores it. */
  setExecuteOutcome: (outcome: BuyerOutcome | undefined) => void
  /** The next `times` refunds (default 1) are `pending` (eCheck), `failed` or `cancelled` instead of `completed`. */
  queueRefundOutcome: (state: 'pending' | 'failed' | 'cancelled', times?: number) => void
  /** A pending refund completes (the money moves now) or fails (nothing moved), with PAYMENT.SALE.REFUNDED. */
  settleRefund: (refundId: string, state: 'completed' | 'failed') => RefundResource
  /** A pending sale clears (`completed`) or bounces (`denied`), with its webhook. */
  settleSale: (saleId: string, outcome: 'completed' | 'denied') => SaleResource
  /**
   * PayPal takes a completed or partially refunded sale's remaining money back (a chargeback):
   * the sale keeps its state and gets the reversal's `reason_code`, and `PAYMENT.SALE.REVERSED` is
   * sent. Returns the sale.
   */
  reverseSale: (saleId: string, options?: ReverseSaleOptions) => SaleResource
  payment: (paymentId: string) => PaymentResource | undefined
  sale: (saleId: string) => SaleResource | undefined
}
