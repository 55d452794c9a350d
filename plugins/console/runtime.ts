import type { FastifyReply, FastifyRequest } from 'fastify'
import {
  HUMAN_STATUSES, OperationIdempotency, Payment, attentionOf, kindOf, readPaymentState, readPaymentStatus,
  type HumanStatusValue, type PaymentAmounts, type PaymentState, type Paywire
} from '../core/engine/index.ts'
import type { CsrfTokens } from './csrf.ts'
import { html, sendPage, type Raw } from './html.ts'
import type { ConsoleAuthorize } from './options.ts'
import { PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND } from './codes.ts'

/** What the console's routes share for the application's lifetime. */
export interface ConsoleRuntime {
  paywire: Paywire
  authorize: ConsoleAuthorize
  csrf: CsrfTokens
  idempotency: OperationIdempotency
  /** The console's address, ending without a slash ("/paywire/console"). */
  home: string
  pageSize: number
  locale: string
}

/** A payment as the console shows it: the record, and its gateway's reading of it. */
export interface PaymentView {
  payment: Payment
  status: HumanStatusValue
  amounts?: PaymentAmounts
  state?: PaymentState
  /** When the reconciliation sweeper looks at it next, and why. */
  attention?: { at: string, reason: string }
}

export async function viewOf (runtime: ConsoleRuntime, payment: Payment): Promise<PaymentView> {
  const { status, amounts } = await readPaymentStatus(runtime.paywire, payment)
  const state = readPaymentState(runtime.paywire, payment)
  const attention = state === undefined ? undefined : attentionOf(state, payment.updatedAt ?? payment.createdAt ?? new Date(0).toISOString())
  return { payment, status, amounts, state, attention }
}

export async function findPayment (runtime: ConsoleRuntime, id: string): Promise<Payment> {
  const payment = /^[\w.:-]{1,200}$/.test(id) ? await runtime.paywire.getStorage(Payment).find(id) : null
  if (payment === null) throw new PAYWIRE_ERR_CONSOLE_PAYMENT_NOT_FOUND()
  return payment
}

export function isHumanStatus (value: string): value is HumanStatusValue {
  return (HUMAN_STATUSES as readonly string[]).includes(value)
}

/** Statuses in the operator's words. */
export const STATUS_LABELS: Readonly<Record<HumanStatusValue, string>> = {
  new: 'New',
  pending: 'Pending',
  authorized: 'Authorized',
  captured: 'Captured',
  refunded: 'Refunded',
  canceled: 'Canceled',
  failed: 'Failed',
  expired: 'Expired',
  suspended: 'Suspended (disputed)',
  payedout: 'Paid out',
  unknown: 'Unknown'
}

export interface ErrorLike {
  code?: unknown
  message?: unknown
  statusCode?: unknown
}

/** A coded error a person may read (a client's or provider's failure); anything else is not shown. */
export function isShowable (error: unknown): error is Error & { code: string, statusCode?: number } {
  const coded = error as ErrorLike | null
  return error instanceof Error && typeof coded?.code === 'string' && coded.code.startsWith('PAYWIRE_ERR_') && kindOf(error) !== 'internal'
}

/** The HTTP status a shown error answers with. */
export function statusOf (error: unknown): number {
  const code = (error as ErrorLike | null)?.statusCode
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500
}

export function problem (message: string, code?: string): Raw {
  return html`<div class="problem" role="alert"><p>${message}</p>${code === undefined ? '' : html`<p class="code">Code: ${code}</p>`}</div>`
}

/** A page that is only an error: its heading, what happened and the way back. */
export function errorPage (runtime: ConsoleRuntime, reply: FastifyReply, statusCode: number, heading: string, message: string, code: string): FastifyReply {
  return sendPage(reply, statusCode, {
    title: heading,
    home: runtime.home,
    body: html`<h1>${heading}</h1>${problem(message, code)}<p><a href="${runtime.home}/">Back to the payments</a></p>`
  })
}

/** The request's query or body fields as strings (a repeated field: its values). */
export function fieldsOf (value: unknown): Record<string, string | string[]> {
  return value !== null && typeof value === 'object' ? value as Record<string, string | string[]> : {}
}

export function single (value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? ''
}

export type ConsoleRequest = FastifyRequest<{ Params: { id: string, operation: string } }>
