import { paypalTime } from '../runtime/store.ts'
import type { Link } from '../runtime/types.ts'
import type { StoredAuthorization, StoredCapture, StoredOrder, StoredOrderRefund } from './store.ts'
import { money } from './validation.ts'

export type V2Resource = Record<string, unknown>

function link (href: string, rel: string, method: string): Link {
  return { href, rel, method }
}

/** Where the payer approves: PayPal's checkoutnow page, with the order id as `token`. */
export function payerActionUrl (base: string, order: StoredOrder): string {
  return `${base}/checkoutnow?token=${order.id}`
}

/** The ids a capture or authorization names its order by (PayPal's supplementary_data). */
function related (order: StoredOrder, authorization?: StoredAuthorization): V2Resource {
  return { related_ids: { order_id: order.id, ...(authorization === undefined ? {} : { authorization_id: authorization.id }) } }
}

function unitFields (order: StoredOrder): V2Resource {
  const fields: V2Resource = {}
  for (const key of ['invoice_id', 'custom_id']) if (typeof order.purchaseUnit[key] === 'string') fields[key] = order.purchaseUnit[key]
  return fields
}

export function captureView (capture: StoredCapture, base: string): V2Resource {
  const self = `${base}/v2/payments/captures/${capture.id}`
  const view: V2Resource = {
    id: capture.id,
    status: capture.status,
    amount: money(capture.amountMinor, capture.currency),
    final_capture: capture.finalCapture,
    seller_protection: { status: 'ELIGIBLE', dispute_categories: ['ITEM_NOT_RECEIVED', 'UNAUTHORIZED_TRANSACTION'] },
    ...unitFields(capture.order),
    supplementary_data: related(capture.order, capture.authorization),
    create_time: paypalTime(capture.createdAt),
    update_time: paypalTime(capture.updatedAt),
    links: [
      link(self, 'self', 'GET'),
      link(`${self}/refund`, 'refund', 'POST'),
      link(`${base}/v2/checkout/orders/${capture.order.id}`, 'up', 'GET')
    ]
  }
  if (capture.reason !== undefined) view.status_details = { reason: capture.reason }
  if (capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED' || capture.status === 'REFUNDED') {
    const fee = Math.round(capture.amountMinor * 0.029) + 30
    view.seller_receivable_breakdown = {
      gross_amount: money(capture.amountMinor, capture.currency),
      paypal_fee: money(fee, capture.currency),
      net_amount: money(capture.amountMinor - fee, capture.currency)
    }
  }
  return view
}

/** PayPal allows one reauthorization, of an original authorization (https://developer.paypal.com/docs/api/payments/v2/#authorizations_reauthorize). */
export function canBeReauthorized (authorization: StoredAuthorization): boolean {
  return authorization.parent === undefined && authorization.reauthorization === undefined
}

export function authorizationView (authorization: StoredAuthorization, base: string): V2Resource {
  const self = `${base}/v2/payments/authorizations/${authorization.id}`
  const links = [link(self, 'self', 'GET')]
  if (authorization.status === 'CREATED' || authorization.status === 'PARTIALLY_CAPTURED') {
    links.push(link(`${self}/capture`, 'capture', 'POST'))
    // A reauthorization cannot be voided (CANNOT_BE_VOIDED) nor reauthorized again.
    if (authorization.parent === undefined) links.push(link(`${self}/void`, 'void', 'POST'))
    if (canBeReauthorized(authorization)) links.push(link(`${self}/reauthorize`, 'reauthorize', 'POST'))
  }
  links.push(link(`${base}/v2/checkout/orders/${authorization.order.id}`, 'up', 'GET'))
  return {
    id: authorization.id,
    status: authorization.status,
    amount: money(authorization.amountMinor, authorization.currency),
    ...unitFields(authorization.order),
    seller_protection: { status: 'ELIGIBLE', dispute_categories: ['ITEM_NOT_RECEIVED', 'UNAUTHORIZED_TRANSACTION'] },
    supplementary_data: related(authorization.order),
    ...(authorization.status === 'PENDING' ? { status_details: { reason: 'PENDING_REVIEW' } } : {}),
    expiration_time: paypalTime(authorization.expiresAt),
    create_time: paypalTime(authorization.createdAt),
    update_time: paypalTime(authorization.updatedAt),
    links
  }
}

/**
 * A refund as Payments v2 shows it (payments_payment_v2.json `refund`): its status, and
 * `status_details.reason` while PENDING or once FAILED (https://developer.paypal.com/api/payments/v2/definitions/refund_status),
 * its own `invoice_id` / `custom_id` / `note_to_payer` when the refund call set them, and `links` to
 * itself and, `up`, to its capture.
 */
export function orderRefundView (refund: StoredOrderRefund, base: string): V2Resource {
  const view: V2Resource = {
    id: refund.id,
    status: refund.status,
    amount: money(refund.amountMinor, refund.currency),
    seller_payable_breakdown: {
      gross_amount: money(refund.amountMinor, refund.currency),
      net_amount: money(refund.amountMinor, refund.currency),
      total_refunded_amount: money(refund.totalRefundedMinor, refund.currency)
    },
    create_time: paypalTime(refund.createdAt),
    update_time: paypalTime(refund.updatedAt),
    links: [
      link(`${base}/v2/payments/refunds/${refund.id}`, 'self', 'GET'),
      link(`${base}/v2/payments/captures/${refund.capture.id}`, 'up', 'GET')
    ]
  }
  if (refund.status === 'PENDING' || refund.status === 'FAILED') view.status_details = { reason: 'ECHECK' }
  if (refund.invoiceId !== undefined) view.invoice_id = refund.invoiceId
  if (refund.customId !== undefined) view.custom_id = refund.customId
  if (refund.noteToPayer !== undefined) view.note_to_payer = refund.noteToPayer
  return view
}

/** The order as `GET /v2/checkout/orders/{id}` (and `Prefer: return=representation`) shows it. */
export function orderView (order: StoredOrder, base: string): V2Resource {
  const self = `${base}/v2/checkout/orders/${order.id}`
  const unit: V2Resource = { ...order.purchaseUnit }
  if (order.captures.length > 0 || order.authorizations.length > 0) {
    const payments: V2Resource = {}
    // Inside an order, PayPal's captures, authorizations and refunds carry no supplementary_data (the
    // Orders v2 schemas have none; Payments v2 GETs and the webhooks do).
    const nested = (resource: V2Resource): V2Resource => {
      const { supplementary_data: _omitted, ...rest } = resource
      return rest
    }
    if (order.authorizations.length > 0) payments.authorizations = order.authorizations.map((entry) => nested(authorizationView(entry, base)))
    if (order.captures.length > 0) payments.captures = order.captures.map((entry) => nested(captureView(entry, base)))
    const refunds = order.captures.flatMap((capture) => capture.refunds)
    if (refunds.length > 0) payments.refunds = refunds.map((refund) => nested(orderRefundView(refund, base)))
    unit.payments = payments
  }
  const view: V2Resource = {
    id: order.id,
    intent: order.intent,
    status: order.status,
    purchase_units: [unit],
    create_time: paypalTime(order.createdAt),
    update_time: paypalTime(order.updatedAt),
    links: [link(self, 'self', 'GET')]
  }
  if (order.approval !== undefined) {
    const { buyer } = order.approval
    const name = { given_name: buyer.firstName, surname: buyer.lastName }
    const address = { country_code: buyer.countryCode }
    view.payer = { name, email_address: buyer.email, payer_id: buyer.payerId, address }
    // The wallet names the payer by account_id (checkout_orders_v2.json `paypal_wallet_response`: no payer_id).
    view.payment_source = { paypal: { email_address: buyer.email, account_id: buyer.payerId, account_status: 'VERIFIED', name, address } }
  }
  const action = order.intent === 'CAPTURE' ? 'capture' : 'authorize'
  // With payment_source.paypal the buyer goes through `payer-action`; without it through `approve`,
  // and the order advertises update and capture/authorize at once (https://developer.paypal.com/docs/api/orders/v2/#orders_create).
  if (order.status === 'CREATED' || order.status === 'PAYER_ACTION_REQUIRED') {
    view.links = order.withPaymentSource
      ? [...view.links as Link[], link(payerActionUrl(base, order), 'payer-action', 'GET')]
      : [...view.links as Link[], link(payerActionUrl(base, order), 'approve', 'GET'), link(self, 'update', 'PATCH'), link(`${self}/${action}`, action, 'POST')]
  }
  if (order.status === 'APPROVED') {
    view.links = [...view.links as Link[], link(self, 'update', 'PATCH'), link(`${self}/${action}`, action, 'POST')]
  }
  return view
}
