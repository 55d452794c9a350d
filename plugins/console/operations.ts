import { randomUUID } from 'node:crypto'
import type { FastifyReply } from 'fastify'
import {
  PAYMENT_OPERATIONS, errorCodes, findCurrency, isClientFailure, isProviderKind, kindOf, parseToMinorUnits, runPaymentOperation
} from '../core/engine/index.ts'
import { CSRF_FIELD } from './csrf.ts'
import { formatMoney, html, sendPage } from './html.ts'
import {
  OPERATION_REQUESTS, OPERATION_WORDS, availableOperations, paymentBody, refundable, type ConsoleOperationName
} from './payment-page.ts'
import {
  STATUS_LABELS, fieldsOf, findPayment, isShowable, problem, single, statusOf, viewOf,
  type ConsoleRequest, type ConsoleRuntime, type PaymentView
} from './runtime.ts'
import {
  PAYWIRE_ERR_CONSOLE_FORM_EXPIRED, PAYWIRE_ERR_CONSOLE_FORM_REUSED, PAYWIRE_ERR_CONSOLE_IN_PROGRESS,
  PAYWIRE_ERR_CONSOLE_OPERATION_NOT_SUPPORTED, PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND
} from './codes.ts'

/*
 * Each operation in two steps, without scripts: a GET shows what is about to happen (the
 * amount checked first) with a form to confirm it; its POST runs it and shows the payment
 * again with the result. The POST carries the CSRF token and an idempotency key made for
 * this confirmation: sending the form twice (a double click, a reload) runs it once, and
 * the second answer says so. The run is the engine's runPaymentOperation, as GraphQL's.
 */

export const OPERATION_NAMES = Object.keys(PAYMENT_OPERATIONS) as ConsoleOperationName[]

const KEY = /^[A-Za-z0-9-]{16,64}$/

/** An input mistake the operator fixes on the payment page. */
class InputProblem extends Error {
  readonly code: string
  constructor (message: string, code: string) {
    super(message)
    this.code = code
  }
}

/** The refund amount the operator typed, in minor units; InputProblem says what is wrong with it. */
function refundAmount (text: string, view: PaymentView, locale: string): number {
  const { currencyCode } = view.payment
  const exp = findCurrency(currencyCode)?.exp ?? 2
  const example = exp === 0 ? '500' : `12.${'5'.padEnd(exp, '0')}`
  let amount: number
  try {
    amount = parseToMinorUnits(text, currencyCode)
  } catch {
    throw new InputProblem(`"${text.slice(0, 32)}" is not an amount in ${currencyCode}: write it like ${example}, with at most ${exp} decimals.`, 'PAYWIRE_ERR_INVALID_AMOUNT')
  }
  if (amount === 0) throw new InputProblem('A refund must be more than zero.', 'PAYWIRE_ERR_INVALID_AMOUNT')
  const left = refundable(view)
  if (left !== undefined && amount > left) {
    throw new InputProblem(`Only ${formatMoney(left, currencyCode, locale)} can still be refunded; ${formatMoney(amount, currencyCode, locale)} is more.`, 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED')
  }
  return amount
}

function operationOf (request: ConsoleRequest): ConsoleOperationName {
  const name = request.params.operation as ConsoleOperationName
  if (!OPERATION_NAMES.includes(name)) throw new errorCodes.PAYWIRE_ERR_ROUTE_NOT_FOUND(request.method, request.url)
  return name
}

/** The payment page again, with a problem on top (and what was typed kept). */
function againWithProblem (runtime: ConsoleRuntime, reply: FastifyReply, view: PaymentView, statusCode: number, message: string, code: string, typed?: string): FastifyReply {
  const title = `Payment ${view.payment.number}`
  return sendPage(reply, statusCode, { title, home: runtime.home, body: paymentBody(runtime, view, problem(message, code), typed) })
}

/** GET …/payments/:id/:operation: what is about to happen, and the form that confirms it. */
export async function confirmPage (runtime: ConsoleRuntime, request: ConsoleRequest, reply: FastifyReply): Promise<FastifyReply> {
  const name = operationOf(request)
  const view = await viewOf(runtime, await findPayment(runtime, request.params.id))
  const { payment } = view
  const typed = single(fieldsOf(request.query).amount)
  if (!availableOperations(runtime.paywire, view).includes(name)) {
    return againWithProblem(runtime, reply, view, 409,
      `This payment is ${STATUS_LABELS[view.status].toLowerCase()}: ${OPERATION_WORDS[name].verb} it is not possible now.`, 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED')
  }
  let amount: number | undefined
  if (name === 'refund') {
    try {
      amount = refundAmount(typed, view, runtime.locale)
    } catch (error) {
      const { message, code } = error as InputProblem
      return againWithProblem(runtime, reply, view, 400, message, code, typed)
    }
  }
  const money = amount === undefined ? '' : formatMoney(amount, payment.currencyCode, runtime.locale)
  const words = OPERATION_WORDS[name]
  const question = name === 'refund'
    ? `Refund ${money} of payment ${payment.number} to the buyer?`
    : `${words.button} ${payment.number}?`
  const base = `${runtime.home}/payments/${payment.id as string}`
  const body = html`<p><a href="${base}">← Payment ${payment.number}</a></p>
<h1>Confirm: ${words.button.toLowerCase()}</h1>
<p>${question} Gateway ${payment.gatewayName}, now ${STATUS_LABELS[view.status].toLowerCase()}, ${formatMoney(payment.totalAmount, payment.currencyCode, runtime.locale)}.</p>
${name === 'sync' ? '' : html`<p><strong>This cannot be undone.</strong></p>`}
<form method="post" action="${base}/${name}">
<input type="hidden" name="${CSRF_FIELD}" value="${runtime.csrf.tokenFor(request, reply)}">
<input type="hidden" name="key" value="${randomUUID()}">
${amount === undefined ? '' : html`<input type="hidden" name="amount" value="${amount}">`}
<button type="submit"${name === 'sync' ? '' : html` class="danger"`}>Yes, ${name === 'refund' ? `refund ${money}` : words.button.toLowerCase()}</button>
<a href="${base}">No, back to the payment</a>
</form>`
  return sendPage(reply, 200, { title: `Confirm ${name}`, home: runtime.home, body })
}

interface Ran {
  status: string
  changed: boolean
}

/** POST …/payments/:id/:operation: runs it once per confirmation, then the payment with the result. */
export async function runOperation (runtime: ConsoleRuntime, request: ConsoleRequest, reply: FastifyReply): Promise<FastifyReply> {
  const name = operationOf(request)
  const fields = fieldsOf(request.body)
  if (!runtime.csrf.verify(request, single(fields[CSRF_FIELD]))) throw new PAYWIRE_ERR_CONSOLE_FORM_EXPIRED()
  const { id } = request.params
  let view = await viewOf(runtime, await findPayment(runtime, id))
  const key = single(fields.key)
  if (!KEY.test(key)) throw new PAYWIRE_ERR_CONSOLE_FORM_EXPIRED()
  let amount: number | undefined
  if (name === 'refund') {
    amount = Number(single(fields.amount))
    if (!Number.isSafeInteger(amount) || amount <= 0) {
      return againWithProblem(runtime, reply, view, 400, 'The refund amount is missing or not a whole number of minor units. Enter the amount again.', 'PAYWIRE_ERR_INVALID_AMOUNT')
    }
  }
  const spec = PAYMENT_OPERATIONS[name]
  let ran
  try {
    ran = await runtime.idempotency.run<Ran>(`console.${name}`, key, { id, amount }, async () => {
      const outcome = await runPaymentOperation(runtime.paywire, id, spec, (model) => OPERATION_REQUESTS[name](model, amount), {
        notFound: () => new PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND(),
        notSupported: (gatewayName, operation) => new PAYWIRE_ERR_CONSOLE_OPERATION_NOT_SUPPORTED(gatewayName, operation)
      })
      return { status: outcome.after, changed: outcome.changed }
    })
  } catch (error) {
    // What a person can act on (not allowed now, more than refundable, the provider refused, busy) comes back on the page.
    if (!isShowable(error) || !(isClientFailure(error) || isProviderKind(kindOf(error)))) throw error
    view = await viewOf(runtime, await findPayment(runtime, id))
    const message = error.code === 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED'
      ? `This payment is ${STATUS_LABELS[view.status].toLowerCase()}: ${OPERATION_WORDS[name].verb} it is not possible now. Nothing was done.`
      : error.message
    return againWithProblem(runtime, reply, view, statusOf(error), message, error.code)
  }
  view = await viewOf(runtime, await findPayment(runtime, id))
  const words = OPERATION_WORDS[name]
  const what = name === 'refund' ? `${words.done} ${formatMoney(amount, view.payment.currencyCode, runtime.locale)}.` : `${words.done}.`
  const result = name === 'sync' && !ran.result.changed ? 'Synced: the provider had nothing new.' : `${what} The payment is now ${STATUS_LABELS[view.status].toLowerCase()}.`
  const replayed = ran.replayed ? ' This confirmation had already been sent: it ran once, nothing was run again.' : ''
  const notice = html`<div class="notice" role="status"><p>${result}${replayed}</p></div>`
  return sendPage(reply, 200, { title: `Payment ${view.payment.number}`, home: runtime.home, body: paymentBody(runtime, view, notice) })
}

export const IDEMPOTENCY_ERRORS = {
  reused: (operation: string) => new PAYWIRE_ERR_CONSOLE_FORM_REUSED(operation.replace(/^console\./, '')),
  inProgress: (operation: string) => new PAYWIRE_ERR_CONSOLE_IN_PROGRESS(operation.replace(/^console\./, ''))
}
