import {
  ArrayObject, Cancel, Capture, PAYMENT_OPERATIONS, Refund, Sync, formatMinorUnits, gatewaySupports, isMinorUnits, type PaymentOperationSpec, type Paywire
} from '../core/engine/index.ts'
import { formatMoney, formatTime, html, type Raw } from './html.ts'
import { STATUS_LABELS, type ConsoleRuntime, type PaymentView } from './runtime.ts'

/*
 * One payment: its facts, amounts, the provider's ids and disputes, a timeline, and the
 * operations its gateway can run from here (each a form leading to a confirmation page).
 *
 * The timeline is what the stored payment itself tells: payment events are deleted once
 * delivered (docs/events.md), so there is no event history to read. Its entries are the
 * payment's creation and last change, the gateway's reading of it now (status and the money
 * that moved), a failed provider call whose outcome Sync has to find out, an authorization's
 * expiry, refunds the provider has not settled, and the disputes the provider reported.
 */

export type ConsoleOperationName = keyof typeof PAYMENT_OPERATIONS

export const OPERATION_REQUESTS: Readonly<Record<ConsoleOperationName, (model: unknown, amount?: number) => Refund | Cancel | Capture | Sync>> = {
  refund: (model, amount) => new Refund(model, { amount }),
  cancel: (model) => new Cancel(model),
  capture: (model) => new Capture(model),
  sync: (model) => new Sync(model)
}

export const OPERATION_WORDS: Readonly<Record<ConsoleOperationName, { verb: string, button: string, done: string }>> = {
  refund: { verb: 'refund', button: 'Refund', done: 'Refunded' },
  cancel: { verb: 'cancel', button: 'Cancel the payment', done: 'Canceled' },
  capture: { verb: 'capture the authorization of', button: 'Capture the authorization', done: 'Captured' },
  sync: { verb: 'ask the provider about', button: 'Sync with the provider', done: 'Synced' }
}

/** The operations this payment's gateway can run now, by its status and actions. */
export function availableOperations (paywire: Paywire, view: PaymentView): ConsoleOperationName[] {
  const { payment, status } = view
  if (!paywire.hasGateway(payment.gatewayName)) return []
  const gateway = paywire.getGateway(payment.gatewayName)
  const details = new ArrayObject(structuredClone(payment.details))
  return (Object.keys(PAYMENT_OPERATIONS) as ConsoleOperationName[]).filter((name) => {
    const spec: PaymentOperationSpec = PAYMENT_OPERATIONS[name]
    return (spec.from === undefined || spec.from.includes(status)) && gatewaySupports(gateway, OPERATION_REQUESTS[name](details))
  })
}

/** What may still be refunded (minor units), when the gateway tells the amounts. */
export function refundable (view: PaymentView): number | undefined {
  const { amounts } = view
  if (amounts === undefined) return undefined
  return Math.max(0, amounts.captured - amounts.refunded - amounts.reversed)
}

/** The amount as the refund field shows it ("12.34"). */
export function decimalOf (amount: number | undefined, currencyCode: string): string {
  if (amount === undefined || !isMinorUnits(amount)) return ''
  try {
    return formatMinorUnits(amount, currencyCode)
  } catch {
    return String(amount)
  }
}

interface TimelineEntry {
  at: string
  what: string
}

function timeline (view: PaymentView, locale: string): Raw {
  const { payment, state, status, amounts } = view
  const money = (amount: number) => formatMoney(amount, payment.currencyCode, locale)
  const entries: TimelineEntry[] = []
  if (payment.createdAt !== undefined) entries.push({ at: payment.createdAt, what: `Payment created for ${money(payment.totalAmount)} (${payment.gatewayName})` })
  if (state?.providerCallFailedAt !== undefined) entries.push({ at: state.providerCallFailedAt, what: 'A call to the provider failed without an answer; Sync finds out what happened' })
  if (payment.updatedAt !== undefined) {
    const moved = amounts === undefined ? '' : `: captured ${money(amounts.captured)}, refunded ${money(amounts.refunded)}${amounts.reversed > 0 ? `, reversed ${money(amounts.reversed)}` : ''}`
    entries.push({ at: payment.updatedAt, what: `Last change: ${STATUS_LABELS[status]}${moved}` })
  }
  if (state?.authorizationExpiresAt !== undefined && status === 'authorized') entries.push({ at: state.authorizationExpiresAt, what: 'The authorization expires (capture or cancel it before)' })
  entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
  const pending = state?.refundsPending ?? 0
  return html`<ol class="timeline">${entries.map((entry) => html`<li><time datetime="${entry.at}">${formatTime(entry.at, locale)}</time>${entry.what}</li>`)}</ol>
${pending > 0 ? html`<p>${pending} refund${pending === 1 ? '' : 's'} asked of the provider and not settled yet (Sync asks again).</p>` : ''}`
}

function providerIds (view: PaymentView): Raw {
  const ids = Object.entries(view.state?.providerIds ?? {})
  if (ids.length === 0) return html`<p>The provider has given no ids yet.</p>`
  return html`<div class="table-wrap"><table><thead><tr><th scope="col">What</th><th scope="col">Provider's id</th></tr></thead>
<tbody>${ids.map(([what, id]) => html`<tr><th scope="row">${what}</th><td><code>${id}</code></td></tr>`)}</tbody></table></div>`
}

function disputes (view: PaymentView, locale: string): Raw {
  const list = view.state?.disputes ?? []
  if (list.length === 0) return html`<p>No disputes.</p>`
  return html`<div class="table-wrap"><table><thead><tr><th scope="col">Dispute</th><th scope="col">State</th><th scope="col" class="num">Amount</th><th scope="col">Reason</th></tr></thead>
<tbody>${list.map((dispute) => html`<tr><th scope="row"><code>${dispute.id}</code></th><td>${dispute.state}</td><td class="num">${dispute.amount === undefined ? '—' : formatMoney(dispute.amount, view.payment.currencyCode, locale)}</td><td>${dispute.reason ?? ''}</td></tr>`)}</tbody></table></div>`
}

function operationForms (runtime: ConsoleRuntime, view: PaymentView, refundValue: string | undefined): Raw {
  const available = availableOperations(runtime.paywire, view)
  if (available.length === 0) return html`<p>Nothing can be run on this payment from here in its status.</p>`
  const base = `${runtime.home}/payments/${view.payment.id as string}`
  return html`<div class="actions">${available.map((name) => name === 'refund'
    ? html`<form method="get" action="${base}/refund"><label for="refund-amount">Amount to refund (${view.payment.currencyCode})</label>
<input id="refund-amount" name="amount" inputmode="decimal" required value="${refundValue ?? decimalOf(refundable(view), view.payment.currencyCode)}" aria-describedby="refund-hint">
<p id="refund-hint" class="code">At most ${formatMoney(refundable(view), view.payment.currencyCode, runtime.locale)}.</p>
<button type="submit" class="danger">Refund…</button></form>`
    : html`<form method="get" action="${base}/${name}"><button type="submit"${name === 'cancel' ? html` class="danger"` : ''}>${OPERATION_WORDS[name].button}…</button></form>`)}</div>`
}

/** The payment page's body; `message` (a result or a problem) goes on top, `refundValue` keeps what was typed. */
export function paymentBody (runtime: ConsoleRuntime, view: PaymentView, message: Raw | '' = '', refundValue?: string): Raw {
  const { payment, status, amounts } = view
  const { locale } = runtime
  const money = (amount: number | undefined) => formatMoney(amount, payment.currencyCode, locale)
  return html`<p><a href="${runtime.home}/">← All payments</a></p>
<h1>Payment ${payment.number === '' ? payment.id : payment.number}</h1>
${message}
<dl class="facts">
<dt>Status</dt><dd class="status" data-status="${status}">${STATUS_LABELS[status]}</dd>
<dt>Amount</dt><dd>${money(payment.totalAmount)}</dd>
<dt>Captured</dt><dd data-amount="captured">${money(amounts?.captured)}</dd>
<dt>Refunded</dt><dd data-amount="refunded">${money(amounts?.refunded)}</dd>
<dt>Reversed</dt><dd data-amount="reversed">${money(amounts?.reversed)}</dd>
<dt>Gateway</dt><dd>${payment.gatewayName}</dd>
<dt>Payment id</dt><dd><code>${payment.id}</code></dd>
<dt>Order number</dt><dd>${payment.number}</dd>
<dt>Description</dt><dd>${payment.description === '' ? '—' : payment.description}</dd>
<dt>Client</dt><dd>${[payment.clientId, payment.clientEmail].filter((value) => value !== '').join(' · ') || '—'}</dd>
<dt>Created</dt><dd>${formatTime(payment.createdAt, locale)}</dd>
<dt>Updated</dt><dd>${formatTime(payment.updatedAt, locale)}</dd>
${view.attention === undefined ? '' : html`<dt>Needs attention</dt><dd>${view.attention.reason.replace(/_/g, ' ')} (from ${formatTime(view.attention.at, locale)})</dd>`}
</dl>
<h2>Operations</h2>
${operationForms(runtime, view, refundValue)}
<h2>Timeline</h2>
${timeline(view, locale)}
<h2>Provider ids</h2>
${providerIds(view)}
<h2>Disputes</h2>
${disputes(view, locale)}`
}
