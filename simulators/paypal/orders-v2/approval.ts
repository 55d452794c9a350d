import type { FastifyInstance, FastifyReply } from 'fastify'
import { formatMinorUnits } from '../runtime/amounts.ts'
import { appendQuery, escapeHtml, sendPage } from '../runtime/pages.ts'
import type { SimulatorBuyer } from '../runtime/types.ts'
import { emitOrderApproved } from './events.ts'
import { isExpired, type Orders } from './operations.ts'
import type { OrderOutcome, StoredOrder } from './store.ts'

export interface OrderApproveOptions {
  outcome?: OrderOutcome
  buyer?: Partial<SimulatorBuyer>
}

export interface OrderApprovalResult {
  orderId: string
  payerId: string
  /** return_url with `token` (the order id) and `PayerID` appended; undefined without an experience context. */
  redirectUrl: string | undefined
}

/** The buyer approves on the payer-action page: the order reads APPROVED until it is captured or authorized. */
export function approveOrder (orders: Orders, order: StoredOrder, options: OrderApproveOptions, base: string): OrderApprovalResult {
  if ((order.status !== 'CREATED' && order.status !== 'PAYER_ACTION_REQUIRED' && order.status !== 'APPROVED') || isExpired(orders, order)) {
    throw new Error(`PayPal simulator: order ${order.id} is ${order.status}${isExpired(orders, order) ? ' (expired)' : ''} and cannot be approved`)
  }
  const firstApproval = order.status !== 'APPROVED'
  order.approval = { buyer: { ...orders.runtime.store.config.buyer, ...options.buyer }, outcome: options.outcome ?? 'completed' }
  order.status = 'APPROVED'
  order.updatedAt = orders.runtime.store.now()
  if (firstApproval) emitOrderApproved(orders.webhooks, order, base)
  const payerId = order.approval.buyer.payerId
  return {
    orderId: order.id,
    payerId,
    redirectUrl: order.returnUrl === undefined ? undefined : appendQuery(order.returnUrl, { token: order.id, PayerID: payerId })
  }
}

/** The buyer cancels: back to cancel_url with the order id as `token`; the order is left as it was. */
export function cancelOrderRedirect (order: StoredOrder): string | undefined {
  return order.cancelUrl === undefined ? undefined : appendQuery(order.cancelUrl, { token: order.id })
}

const DECISIONS: Record<string, OrderOutcome | 'cancel'> = {
  approve: 'completed',
  approve_pending: 'pending',
  decline: 'declined',
  needs_instrument: 'payer_action_required',
  cancel: 'cancel'
}

function reviewForm (order: StoredOrder): string {
  const amount = `${formatMinorUnits(order.totalMinor, order.currency)} ${order.currency}`
  const description = order.purchaseUnit.description
  // An approved order whose buyer is here again was sent back by a 422's redirect link: another choice.
  const again = order.status === 'APPROVED' && order.captures.length === 0 && order.authorizations.length === 0
  return `<p>You are paying <strong>${escapeHtml(amount)}</strong>.</p>
${typeof description === 'string' ? `<p>${escapeHtml(description)}</p>\n` : ''}<form method="post" action="/checkoutnow">
<input type="hidden" name="token" value="${escapeHtml(order.id)}">
<fieldset>
<legend>${again ? 'Choose how to pay' : 'How should this payment go?'}</legend>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="approve_pending">Approve (pending eCheck)</button>
<button type="submit" name="decision" value="decline">Card is declined</button>
<button type="submit" name="decision" value="needs_instrument">Card needs another instrument</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</fieldset>
</form>`
}

/**
 * The page the payer-action link points to (`/checkoutnow?token=<order id>`): plain HTML forms,
 * as for v1. A decline or "needs another instrument" is felt at capture (422), and the buyer is
 * sent back here to choose again.
 */
export function registerOrderApprovalPage (app: FastifyInstance, orders: Orders): void {
  function findOrder (token: unknown): StoredOrder | undefined {
    return typeof token === 'string' ? orders.store.orders.get(token) : undefined
  }

  function unusable (reply: FastifyReply, order: StoredOrder): FastifyReply | undefined {
    if ((order.status === 'CREATED' || order.status === 'PAYER_ACTION_REQUIRED' || order.status === 'APPROVED') && !isExpired(orders, order)) return undefined
    return sendPage(reply, 400, 'This order can no longer be approved',
      '<p>It has already been paid or has expired. Return to the merchant and start again.</p>')
  }

  const missing = (reply: FastifyReply): FastifyReply => sendPage(reply, 404, 'Order not found', '<p>This checkout link is not valid.</p>')

  app.get<{ Querystring: { token?: string } }>('/checkoutnow', async function showOrderApproval (request, reply) {
    const order = findOrder(request.query.token)
    if (order === undefined) return missing(reply)
    return unusable(reply, order) ?? sendPage(reply, 200, 'Review your payment', reviewForm(order))
  })

  app.post<{ Body: { token?: string, decision?: string } | undefined }>('/checkoutnow', async function decideOnOrder (request, reply) {
    const fields = request.body ?? {}
    const order = findOrder(fields.token)
    if (order === undefined) return missing(reply)
    const early = unusable(reply, order)
    if (early !== undefined) return early
    const decision = DECISIONS[fields.decision ?? '']
    if (decision === undefined) return sendPage(reply, 400, 'Choose an outcome', '<p>Unknown decision.</p>')
    const target = decision === 'cancel'
      ? cancelOrderRedirect(order)
      : approveOrder(orders, order, { outcome: decision }, orders.runtime.baseUrl(request)).redirectUrl
    if (target === undefined) return sendPage(reply, 200, 'Done', '<p>You can close this window.</p>')
    return reply.redirect(target, 302)
  })
}
