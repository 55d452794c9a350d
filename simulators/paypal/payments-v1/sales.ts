import type { FastifyInstance } from 'fastify'
import { amountIssue, toMinorUnits } from '../runtime/amounts.ts'
import { apiError } from '../runtime/errors.ts'
import { newTransactionId } from '../runtime/ids.ts'
import { INVALID_ISSUE, isJsonObject, REQUIRED_ISSUE, requestObject } from '../runtime/validation.ts'
import { paymentsError } from './errors.ts'
import { emitRefundEvent, emitReversalEvent, emitSaleEvent } from './events.ts'
import { Issues, ZERO_AMOUNT_ISSUE } from './payment-validation.ts'
import { refundView, reversalView, saleView } from './resources.ts'
import type { Payments, StoredRefund, StoredReversal, StoredSale } from './store.ts'
import type { ReverseSaleOptions } from './types.ts'

interface RefundInput {
  amountMinor: number | undefined
  description?: string
  reason?: string
  invoiceNumber?: string
}

function optionalText (request: Record<string, unknown>, field: string): string | undefined {
  const value = request[field]
  return typeof value === 'string' ? value : undefined
}

/** An empty body (or `{}`) refunds what remains; `amount` refunds part of it. */
export function parseRefund (body: unknown, sale: StoredSale): RefundInput {
  const request = requestObject(body)
  const issues = new Issues()
  issues.maxLength(request, 'description', '', 255)
  issues.maxLength(request, 'reason', '', 30)
  issues.maxLength(request, 'invoice_number', '', 127)
  let amountMinor: number | undefined
  const { amount } = request
  if (amount !== undefined) {
    if (!isJsonObject(amount)) {
      issues.add('amount', INVALID_ISSUE)
    } else if (amount.currency !== sale.currency) {
      issues.add('amount.currency', amount.currency === undefined ? REQUIRED_ISSUE : 'Refund currency must be the same as the sale currency')
    } else {
      const issue = amountIssue(amount.total, sale.currency)
      if (issue !== undefined) issues.add('amount.total', amount.total === undefined ? REQUIRED_ISSUE : issue)
      else amountMinor = toMinorUnits(amount.total as string, sale.currency)
      if (amountMinor === 0) issues.add('amount.total', ZERO_AMOUNT_ISSUE)
    }
  }
  issues.throwIfAny()
  return {
    amountMinor,
    description: optionalText(request, 'description'),
    reason: optionalText(request, 'reason'),
    invoiceNumber: optionalText(request, 'invoice_number')
  }
}

/** A pending sale clears or bounces: what `simulator.settleSale` drives. */
export function settlePendingSale (payments: Payments, saleId: string, outcome: 'completed' | 'denied'): StoredSale {
  const { runtime } = payments
  const sale = payments.store.sales.get(saleId)
  if (sale === undefined) throw new Error(`PayPal simulator: no sale ${saleId}`)
  if (sale.state !== 'pending') throw new Error(`PayPal simulator: sale ${saleId} is ${sale.state}, not pending`)
  sale.state = outcome
  sale.updatedAt = runtime.store.now()
  emitSaleEvent(payments.webhooks, outcome, sale, runtime.baseUrl())
  return sale
}

/**
 * What a refund's state does to its sale (the refund states of payments_payment_v1.json: pending,
 * completed, cancelled, failed): completed moves the money, pending holds it, the others move nothing.
 */
function applyRefund (payments: Payments, refund: StoredRefund): void {
  const { sale } = refund
  if (refund.state === 'pending') sale.pendingRefundMinor += refund.amountMinor
  if (refund.state !== 'completed') return
  sale.refundedMinor += refund.amountMinor
  sale.state = sale.refundedMinor === sale.totalMinor ? 'refunded' : 'partially_refunded'
  sale.updatedAt = payments.runtime.store.now()
  refund.refundedMinorAfter = sale.refundedMinor
}

/** A pending refund completes or fails later (`simulator.settleRefund`), with PAYMENT.SALE.REFUNDED carrying its new state. */
export function settlePendingRefund (payments: Payments, refundId: string, state: 'completed' | 'failed'): StoredRefund {
  const refund = payments.store.refunds.get(refundId)
  if (refund === undefined) throw new Error(`PayPal simulator: no refund ${refundId}`)
  if (refund.state !== 'pending') throw new Error(`PayPal simulator: refund ${refundId} is ${refund.state}, not pending`)
  refund.sale.pendingRefundMinor -= refund.amountMinor
  refund.state = state
  refund.updatedAt = payments.runtime.store.now()
  applyRefund(payments, refund)
  emitRefundEvent(payments.webhooks, refund, payments.runtime.baseUrl())
  return refund
}

const REVERSAL_REASONS: ReadonlySet<string> = new Set(['CHARGEBACK', 'GUARANTEE', 'BUYER_COMPLAINT', 'REFUND'])

/** PayPal takes back what the buyer has not been refunded yet: what `simulator.reverseSale` drives. */
export function reverseCompletedSale (payments: Payments, saleId: string, options: ReverseSaleOptions): StoredSale {
  const { runtime, store } = payments
  const sale = store.sales.get(saleId)
  if (sale === undefined) throw new Error(`PayPal simulator: no sale ${saleId}`)
  if (sale.state !== 'completed' && sale.state !== 'partially_refunded') {
    throw new Error(`PayPal simulator: sale ${saleId} is ${sale.state}; only a completed or partially refunded sale can be reversed`)
  }
  if (sale.reversal !== undefined) throw new Error(`PayPal simulator: sale ${saleId} was reversed already`)
  const reasonCode = options.reasonCode ?? 'CHARGEBACK'
  if (!REVERSAL_REASONS.has(reasonCode)) throw new TypeError(`PayPal simulator: unknown reversal reason ${String(reasonCode)}`)
  store.counters.reversals++
  const now = runtime.store.now()
  const reversal: StoredReversal = {
    id: newTransactionId(),
    sale,
    currency: sale.currency,
    amountMinor: Math.min(options.amountMinor ?? Infinity, sale.totalMinor - sale.refundedMinor - sale.pendingRefundMinor),
    reasonCode,
    createdAt: now
  }
  sale.reversal = reversal
  // The sale keeps a state payments_payment_v1.json lists (completed, partially_refunded, pending,
  // refunded, denied: no `reversed`); what tells of the reversal is its `reason_code` ("why the
  // transaction state is pending or reversed") and the reversal transaction PAYMENT.SALE.REVERSED
  // carries (https://developer.paypal.com/api/rest/webhooks/event-names/#sales).
  sale.updatedAt = now
  store.reversals.set(reversal.id, reversal)
  emitReversalEvent(payments.webhooks, reversal, runtime.baseUrl())
  return sale
}

export function registerSaleRoutes (app: FastifyInstance, payments: Payments): void {
  const { runtime, store } = payments

  function ownedSale (clientId: string, saleId: string): StoredSale {
    const sale = store.sales.get(saleId)
    if (sale === undefined || sale.clientId !== clientId) throw apiError('INVALID_RESOURCE_ID', [])
    return sale
  }

  app.get<{ Params: { saleId: string } }>('/v1/payments/sale/:saleId', async function showSale (request) {
    const sale = ownedSale(runtime.context(request).clientId, request.params.saleId)
    return saleView(sale, runtime.baseUrl(request))
  })

  app.post<{ Params: { saleId: string } }>('/v1/payments/sale/:saleId/refund', { config: { paypalIdempotent: true } },
    async function refundSale (request, reply) {
      const sale = ownedSale(runtime.context(request).clientId, request.params.saleId)
      const input = parseRefund(request.body, sale)
      const remaining = sale.totalMinor - sale.refundedMinor - sale.pendingRefundMinor
      const amountMinor = input.amountMinor ?? remaining
      // Pending, denied, reversed and fully refunded sales have nothing to give back.
      if ((sale.state !== 'completed' && sale.state !== 'partially_refunded') || sale.reversal !== undefined || amountMinor > remaining || remaining === 0) {
        throw paymentsError('TRANSACTION_REFUSED')
      }
      store.counters.refunds++
      const now = runtime.store.now()
      const refund: StoredRefund = {
        id: newTransactionId(),
        sale,
        state: store.refundOutcomes.shift() ?? 'completed',
        currency: sale.currency,
        amountMinor,
        refundedMinorAfter: sale.refundedMinor,
        description: input.description,
        reason: input.reason,
        invoiceNumber: input.invoiceNumber,
        createdAt: now,
        updatedAt: now
      }
      applyRefund(payments, refund)
      sale.refunds.push(refund)
      store.refunds.set(refund.id, refund)
      const base = runtime.baseUrl(request)
      emitRefundEvent(payments.webhooks, refund, base)
      return reply.code(201).send(refundView(refund, base))
    })

  // A reversal's self link points here too, as in PayPal's PAYMENT.SALE.REVERSED events.
  app.get<{ Params: { refundId: string } }>('/v1/payments/refund/:refundId', async function showRefund (request) {
    const { refundId } = request.params
    const { clientId } = runtime.context(request)
    const refund = store.refunds.get(refundId)
    if (refund !== undefined && refund.sale.clientId === clientId) return refundView(refund, runtime.baseUrl(request))
    const reversal = store.reversals.get(refundId)
    if (reversal !== undefined && reversal.sale.clientId === clientId) return reversalView(reversal, runtime.baseUrl(request))
    throw apiError('INVALID_RESOURCE_ID', [])
  })
}
