import type { FastifyInstance } from 'fastify'
import { currencyExponent } from '../runtime/amounts.ts'
import { validationError } from '../runtime/errors.ts'
import { newExpressCheckoutToken, newPaymentId, newTransactionId } from '../runtime/ids.ts'
import { INVALID_ISSUE } from '../runtime/validation.ts'
import { paymentsError } from './errors.ts'
import { emitSaleEvent } from './events.ts'
import { applyPatch, parsePatchRequest } from './payment-patch.ts'
import { parseCreatePayment, parseExecutePayment, parseUpdatedTransaction } from './payment-validation.ts'
import { paymentView } from './resources.ts'
import { isExpired, ownedPayment } from './store.ts'
import type { Payments, PaymentsStore, StoredPayment, StoredSale } from './store.ts'
import type { BuyerOutcome } from './types.ts'

interface PaymentParams { paymentId: string }
interface ListQuery { count?: string, start_index?: string, start_id?: string }

const MAX_LIST_COUNT = 20

// Only there so transaction_fee looks like a real one; close to PayPal's standard domestic rate.
function simulatedFee (totalMinor: number, currency: string): number {
  return Math.round(totalMinor * 0.029) + (currencyExponent(currency) === 0 ? 40 : 30)
}

function listParameter (issues: Array<{ field: string, issue: string }>, field: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!/^\d+$/.test(value) || number > max) {
    issues.push({ field, issue: INVALID_ISSUE })
    return fallback
  }
  return number
}

// PayPal refuses to take money twice for one invoice number (DUPLICATE_TRANSACTION, paypal-wire §2.1).
function assertInvoiceUnused (store: PaymentsStore, clientId: string, invoiceNumber: unknown): void {
  if (invoiceNumber !== undefined && [...store.payments.values()].some((payment) =>
    payment.clientId === clientId && payment.state === 'approved' && payment.transaction.invoice_number === invoiceNumber)) {
    throw paymentsError('DUPLICATE_TRANSACTION')
  }
}

function executeChecks (payments: Payments, payment: StoredPayment, payerId: string): NonNullable<StoredPayment['approval']> {
  if (payment.state === 'approved') throw paymentsError('PAYMENT_ALREADY_DONE')
  if (payment.state === 'failed') throw paymentsError('PAYMENT_STATE_INVALID')
  if (isExpired(payments, payment)) throw paymentsError('PAYMENT_EXPIRED')
  if (payment.approval === undefined) throw paymentsError('PAYMENT_NOT_APPROVED_FOR_EXECUTION')
  if (payment.approval.buyer.payerId !== payerId) throw paymentsError('INVALID_PAYER_ID')
  return payment.approval
}

function createSale (payments: Payments, payment: StoredPayment, outcome: Exclude<BuyerOutcome, 'declined'>): StoredSale {
  const shared = payments.runtime.store
  const now = shared.now()
  const { details } = payment.transaction.amount as { details?: Record<string, string> }
  const sale: StoredSale = {
    id: newTransactionId(),
    clientId: payment.clientId,
    payment,
    state: outcome,
    currency: payment.currency,
    totalMinor: payment.totalMinor,
    details,
    pendingReasonCode: outcome === 'pending' ? shared.config.pendingReasonCode : undefined,
    feeMinor: simulatedFee(payment.totalMinor, payment.currency),
    refundedMinor: 0,
    pendingRefundMinor: 0,
    refunds: [],
    createdAt: now,
    updatedAt: now
  }
  payments.store.sales.set(sale.id, sale)
  return sale
}

export function registerPaymentRoutes (app: FastifyInstance, payments: Payments): void {
  const { runtime, store } = payments

  app.post('/v1/payments/payment', { config: { paypalIdempotent: true } }, async function createPayment (request, reply) {
    const input = parseCreatePayment(request.body)
    const { clientId } = runtime.context(request)
    assertInvoiceUnused(store, clientId, input.transaction.invoice_number)
    store.counters.paymentsCreated++
    const now = runtime.store.now()
    const payment: StoredPayment = {
      id: newPaymentId(),
      clientId,
      ecToken: newExpressCheckoutToken(),
      state: 'created',
      transaction: input.transaction,
      currency: input.currency,
      totalMinor: input.totalMinor,
      returnUrl: input.returnUrl,
      cancelUrl: input.cancelUrl,
      noteToPayer: input.noteToPayer,
      createdAt: now,
      updatedAt: now
    }
    store.payments.set(payment.id, payment)
    store.paymentIdsByToken.set(payment.ecToken, payment.id)
    return reply.code(201).send(paymentView(payment, runtime.baseUrl(request)))
  })

  app.get<{ Querystring: ListQuery }>('/v1/payments/payment', async function listPayments (request) {
    const issues: Array<{ field: string, issue: string }> = []
    const count = listParameter(issues, 'count', request.query.count, 10, MAX_LIST_COUNT)
    const startIndex = listParameter(issues, 'start_index', request.query.start_index, 0, Number.MAX_SAFE_INTEGER)
    if (issues.length > 0) throw validationError(issues)
    const { clientId } = runtime.context(request)
    // Newest first; PayPal leaves payments nobody approved and executed out of the history.
    const history = [...store.payments.values()].reverse()
      .filter((payment) => payment.clientId === clientId && payment.state !== 'created')
    const startId = request.query.start_id
    const from = startId === undefined ? startIndex : Math.max(0, history.findIndex((payment) => payment.id === startId))
    const page = history.slice(from, from + count)
    const base = runtime.baseUrl(request)
    const next = history[from + count]
    return {
      payments: page.map((payment) => paymentView(payment, base)),
      count: page.length,
      ...(next === undefined ? {} : { next_id: next.id })
    }
  })

  app.get<{ Params: PaymentParams }>('/v1/payments/payment/:paymentId', async function showPayment (request) {
    const payment = ownedPayment(payments, runtime.context(request).clientId, request.params.paymentId)
    return paymentView(payment, runtime.baseUrl(request))
  })

  // Amount, shipping address, invoice number and custom, while the payment is not executed yet.
  app.patch<{ Params: PaymentParams }>('/v1/payments/payment/:paymentId', async function updatePayment (request) {
    const { clientId } = runtime.context(request)
    const payment = ownedPayment(payments, clientId, request.params.paymentId)
    const operations = parsePatchRequest(request.body)
    if (payment.state !== 'created') throw paymentsError('PAYMENT_STATE_INVALID')
    if (isExpired(payments, payment)) throw paymentsError('PAYMENT_EXPIRED')
    const updated = parseUpdatedTransaction(applyPatch(payment.transaction, operations))
    assertInvoiceUnused(store, clientId, updated.transaction.invoice_number)
    store.counters.paymentsUpdated++
    payment.transaction = updated.transaction
    payment.currency = updated.currency
    payment.totalMinor = updated.totalMinor
    payment.updatedAt = runtime.store.now()
    return paymentView(payment, runtime.baseUrl(request))
  })

  app.post<{ Params: PaymentParams }>('/v1/payments/payment/:paymentId/execute', { config: { paypalIdempotent: true } },
    async function executePayment (request) {
      const payment = ownedPayment(payments, runtime.context(request).clientId, request.params.paymentId)
      const { payerId } = parseExecutePayment(request.body)
      const approval = executeChecks(payments, payment, payerId)
      store.counters.paymentsExecuted++
      const outcome = store.executeOutcomeOverride ?? approval.outcome
      payment.updatedAt = runtime.store.now()
      if (outcome === 'declined') {
        store.counters.paymentsDeclined++
        payment.state = 'failed'
        payment.failureReason = 'UNABLE_TO_COMPLETE_TRANSACTION'
        throw paymentsError('INSTRUMENT_DECLINED')
      }
      const sale = createSale(payments, payment, outcome)
      payment.sale = sale
      payment.state = 'approved'
      const base = runtime.baseUrl(request)
      emitSaleEvent(payments.webhooks, outcome, sale, base)
      return paymentView(payment, base)
    })
}
