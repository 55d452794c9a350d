import type { FastifyInstance } from 'fastify'
import { apiError, validationError } from '../runtime/errors.ts'
import type { SimulatorServer } from '../runtime/server.ts'
import { INVALID_ISSUE } from '../runtime/validation.ts'
import { disputeSummary, disputeView, emitDisputeEvent, newDisputeId } from './disputes.ts'
import type { DisputeReason, DisputeStage, DisputeStatus, StoredDispute } from './disputes.ts'

export type { DisputeReason, DisputeStage, DisputeStatus } from './disputes.ts'

export interface OpenDisputeOptions {
  /** Default `MERCHANDISE_OR_SERVICE_NOT_RECEIVED`. */
  reason?: DisputeReason
  /** Minor units disputed; default all the seller still holds. */
  amountMinor?: number
  /** Default `INQUIRY`. */
  stage?: DisputeStage
}

/** What tests drive disputes with (`app.simulator.disputes`): PayPal's agents and the buyer, in short. */
export interface DisputesControl {
  /** The buyer disputes a sale (v1) or a capture (v2): CUSTOMER.DISPUTE.CREATED. Returns the dispute. */
  open: (transactionId: string, options?: OpenDisputeOptions) => Record<string, unknown>
  /** The dispute moves on (status, stage): CUSTOMER.DISPUTE.UPDATED. */
  update: (disputeId: string, changes: { status?: Exclude<DisputeStatus, 'RESOLVED'>, stage?: DisputeStage }) => Record<string, unknown>
  /**
   * PayPal decides: `won` (RESOLVED_SELLER_FAVOUR) leaves the money; `lost` (RESOLVED_BUYER_FAVOUR) takes
   * the disputed amount back with the API's reversal (PAYMENT.SALE.REVERSED / PAYMENT.CAPTURE.REVERSED),
   * then CUSTOMER.DISPUTE.RESOLVED.
   */
  resolve: (disputeId: string, outcome: 'won' | 'lost') => Record<string, unknown>
  dispute: (disputeId: string) => Record<string, unknown> | undefined
  /**
   * Whether the merchant's app has the Disputes feature ("When you create an app, enable Disputes in the
   * App feature options section", https://developer.paypal.com/api/customer-disputes/v1/). Without it
   * (`false`) the Disputes API answers 403 NOT_AUTHORIZED with the issue PERMISSION_DENIED
   * (https://developer.paypal.com/api/customer-disputes/v1/errors/permission_denied); CUSTOMER.DISPUTE.*
   * webhooks are still sent. Default `true`.
   */
  setPermission: (granted: boolean) => void
}

interface ListQuery { disputed_transaction_id?: string, page_size?: string }

/**
 * PayPal's Disputes API, read side: `GET /v1/customer/disputes` (newest first, `disputed_transaction_id`
 * and `page_size` filters, summary fields) and `GET /v1/customer/disputes/{id}`
 * (https://developer.paypal.com/docs/api/customer-disputes/v1/#disputes_list, #disputes_get), over the
 * sales and captures the two payment APIs registered.
 */
export function installDisputesApi (server: SimulatorServer): { control: DisputesControl } {
  const { runtime, webhooks, disputables } = server
  const disputes = new Map<string, StoredDispute>()
  let permitted = true

  function checkPermission (): void {
    if (!permitted) {
      throw apiError('NOT_AUTHORIZED', [{ issue: 'PERMISSION_DENIED', description: 'You do not have the correct permission for the requested operation.' }])
    }
  }

  server.addApi((app: FastifyInstance) => {
    app.get<{ Querystring: ListQuery }>('/v1/customer/disputes', async function listDisputes (request) {
      const { clientId } = runtime.context(request)
      checkPermission()
      const pageSize = request.query.page_size === undefined ? 10 : Number(request.query.page_size)
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) throw validationError([{ field: 'page_size', issue: INVALID_ISSUE }])
      const base = runtime.baseUrl(request)
      const items = [...disputes.values()].reverse()
        .filter((dispute) => dispute.transaction.clientId === clientId &&
          (request.query.disputed_transaction_id === undefined || dispute.transaction.id === request.query.disputed_transaction_id))
        .slice(0, pageSize)
      return { items: items.map((dispute) => disputeSummary(dispute, base)), links: [{ href: `${base}/v1/customer/disputes`, rel: 'self', method: 'GET' }] }
    })

    app.get<{ Params: { id: string } }>('/v1/customer/disputes/:id', async function showDispute (request) {
      checkPermission()
      const dispute = disputes.get(request.params.id)
      if (dispute === undefined || dispute.transaction.clientId !== runtime.context(request).clientId) throw apiError('INVALID_RESOURCE_ID', [])
      return disputeView(dispute, runtime.baseUrl(request))
    })
  })

  function stored (disputeId: string): StoredDispute {
    const dispute = disputes.get(disputeId)
    if (dispute === undefined) throw new Error(`PayPal simulator: no dispute ${disputeId}`)
    if (dispute.status === 'RESOLVED') throw new Error(`PayPal simulator: dispute ${disputeId} is resolved`)
    return dispute
  }

  function touched (dispute: StoredDispute, kind: 'CREATED' | 'UPDATED' | 'RESOLVED'): Record<string, unknown> {
    const base = runtime.baseUrl()
    emitDisputeEvent(webhooks, dispute, kind, base)
    return disputeView(dispute, base)
  }

  return {
    control: {
      open (transactionId, options = {}) {
        const transaction = disputables.find(transactionId)
        if (transaction === undefined) throw new Error(`PayPal simulator: no sale or capture ${transactionId} to dispute`)
        const amountMinor = options.amountMinor ?? transaction.remainingMinor()
        if (!Number.isInteger(amountMinor) || amountMinor <= 0 || amountMinor > transaction.amountMinor) {
          throw new TypeError(`PayPal simulator: cannot dispute ${String(amountMinor)} minor units of ${transactionId}`)
        }
        const now = runtime.store.now()
        const dispute: StoredDispute = {
          id: newDisputeId(),
          transaction,
          reason: options.reason ?? 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
          status: 'OPEN',
          stage: options.stage ?? 'INQUIRY',
          amountMinor,
          createdAt: now,
          updatedAt: now
        }
        disputes.set(dispute.id, dispute)
        return touched(dispute, 'CREATED')
      },
      update (disputeId, changes) {
        const dispute = stored(disputeId)
        dispute.status = changes.status ?? dispute.status
        dispute.stage = changes.stage ?? dispute.stage
        dispute.updatedAt = runtime.store.now()
        return touched(dispute, 'UPDATED')
      },
      resolve (disputeId, outcome) {
        const dispute = stored(disputeId)
        const taken = outcome === 'lost' ? Math.min(dispute.amountMinor, dispute.transaction.remainingMinor()) : 0
        if (taken > 0) dispute.transaction.reverse(taken)
        dispute.status = 'RESOLVED'
        dispute.outcome = outcome === 'lost' ? 'RESOLVED_BUYER_FAVOUR' : 'RESOLVED_SELLER_FAVOUR'
        dispute.updatedAt = runtime.store.now()
        return touched(dispute, 'RESOLVED')
      },
      dispute (disputeId) {
        const dispute = disputes.get(disputeId)
        return dispute === undefined ? undefined : disputeView(dispute, runtime.baseUrl())
      },
      setPermission (granted) {
        permitted = granted
      }
    }
  }
}
