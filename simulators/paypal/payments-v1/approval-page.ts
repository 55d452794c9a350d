import type { FastifyInstance, FastifyReply } from 'fastify'
import { formatMinorUnits } from '../runtime/amounts.ts'
import { escapeHtml, sendPage } from '../runtime/pages.ts'
import { approvePayment, cancelRedirect } from './approval.ts'
import { isExpired } from './store.ts'
import type { Payments, StoredPayment } from './store.ts'
import type { BuyerOutcome } from './types.ts'

interface CheckoutFields {
  cmd?: string
  token?: string
  decision?: string
}

const DECISIONS: Record<string, BuyerOutcome | 'cancel'> = {
  approve: 'completed',
  approve_pending: 'pending',
  decline: 'declined',
  cancel: 'cancel'
}

function reviewPage (payment: StoredPayment): string {
  const description = payment.transaction.description
  const amount = `${formatMinorUnits(payment.totalMinor, payment.currency)} ${payment.currency}`
  return `<p>You are paying <strong>${escapeHtml(amount)}</strong>.</p>
${typeof description === 'string' ? `<p>${escapeHtml(description)}</p>\n` : ''}<form method="post" action="/cgi-bin/webscr">
<input type="hidden" name="cmd" value="_express-checkout">
<input type="hidden" name="token" value="${escapeHtml(payment.ecToken)}">
<fieldset>
<legend>How should this payment go?</legend>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="approve_pending">Approve (pending eCheck)</button>
<button type="submit" name="decision" value="decline">Decline card</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
</fieldset>
</form>`
}

/**
 * The buyer-facing page PayPal's approval_url points to (`/cgi-bin/webscr?cmd=_express-checkout`).
 * Plain HTML forms, no JavaScript, so tests and curl can drive it.
 */
export function registerApprovalPage (app: FastifyInstance, payments: Payments): void {
  const { runtime, store } = payments

  function findPayment (fields: CheckoutFields): StoredPayment | undefined {
    if (fields.cmd !== '_express-checkout' || fields.token === undefined) return undefined
    const paymentId = store.paymentIdsByToken.get(fields.token)
    return paymentId === undefined ? undefined : store.payments.get(paymentId)
  }

  function unusable (reply: FastifyReply, payment: StoredPayment): FastifyReply | undefined {
    if (payment.state === 'created' && !isExpired(payments, payment)) return undefined
    return sendPage(reply, 400, 'This payment can no longer be approved',
      '<p>It has already been completed, has failed or has expired. Return to the merchant and start again.</p>')
  }

  const notFound = (reply: FastifyReply): FastifyReply =>
    sendPage(reply, 404, 'Payment not found', '<p>This checkout link is not valid.</p>')

  app.get<{ Querystring: CheckoutFields }>('/cgi-bin/webscr', async function showApprovalPage (request, reply) {
    const payment = findPayment(request.query)
    if (payment === undefined) return notFound(reply)
    return unusable(reply, payment) ?? sendPage(reply, 200, 'Review your payment', reviewPage(payment))
  })

  app.post<{ Body: CheckoutFields | undefined }>('/cgi-bin/webscr', async function decideOnApprovalPage (request, reply) {
    const fields = request.body ?? {}
    const payment = findPayment(fields)
    if (payment === undefined) return notFound(reply)
    const early = unusable(reply, payment)
    if (early !== undefined) return early
    const decision = DECISIONS[fields.decision ?? '']
    if (decision === undefined) return sendPage(reply, 400, 'Choose an outcome', '<p>Unknown decision.</p>')
    if (decision === 'cancel') return reply.redirect(cancelRedirect(payment), 302)
    const approval = approvePayment(payments, payment, { outcome: decision }, runtime.baseUrl(request))
    return reply.redirect(approval.redirectUrl, 302)
  })
}
