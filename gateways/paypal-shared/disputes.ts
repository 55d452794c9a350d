import { HumanStatus, type HumanStatusValue, type PaymentDispute } from '../../plugins/core/engine/index.ts'
import { isPaypalCallError, type PaypalResource, type PaypalRestClient } from './client.ts'
import { fromPaypalAmount } from './money.ts'
import type { PaypalWebhookEvent } from './webhook-event.ts'

/*
 * Disputes as PayPal's Disputes API tells them (https://developer.paypal.com/docs/api/customer-disputes/v1/),
 * for both PayPal APIs: CUSTOMER.DISPUTE.CREATED / UPDATED / RESOLVED
 * (https://developer.paypal.com/api/rest/webhooks/event-names/#disputes) name the disputed sale (v1) or
 * capture (v2) by `disputed_transactions[].seller_transaction_id`, and the shop's `custom` when it set
 * one. The dispute itself is read from PayPal (`GET /v1/customer/disputes/{id}`), not from the event.
 */

export function isDisputeEvent (event: PaypalWebhookEvent): boolean {
  return typeof event.event_type === 'string' && event.event_type.startsWith('CUSTOMER.DISPUTE.')
}

function disputedTransactions (resource: Record<string, any>): Array<Record<string, any>> {
  return Array.isArray(resource.disputed_transactions) ? resource.disputed_transactions : []
}

/** The sale or capture a dispute event names (PayPal's `seller_transaction_id`). */
export function disputedTransactionId (event: PaypalWebhookEvent): string | undefined {
  const id = disputedTransactions(event.resource ?? {}).map((transaction) => transaction.seller_transaction_id).find((value) => typeof value === 'string')
  return id as string | undefined
}

/** The shop's `custom` on the disputed transaction, when it set one. */
export function disputedCustomId (event: PaypalWebhookEvent): string | undefined {
  const custom = disputedTransactions(event.resource ?? {}).map((transaction) => transaction.custom).find((value) => typeof value === 'string')
  return custom as string | undefined
}

/** The disputes recorded on a payment (recordDispute), none when there are none. */
function disputeEntries (record: Record<string, any>): Array<Record<string, any>> {
  return Array.isArray(record.paywire_disputes) ? record.paywire_disputes : []
}

/** PayPal's current view of a dispute. */
export async function fetchDispute (client: PaypalRestClient, id: string): Promise<PaypalResource> {
  return await client.request('GET', `/v1/customer/disputes/${encodeURIComponent(id)}`)
}

/**
 * The dispute a verified CUSTOMER.DISPUTE.* delivery carries (its `resource`), as PayPal shows it now; when the merchant's
 * app may not read disputes (403, see syncDisputes), the delivery's own resource, which is the dispute
 * as PayPal sent it (signed): without it the event would fail on every redelivery and never be recorded.
 */
export async function disputeOfEvent (client: PaypalRestClient, resource: Record<string, any> & { dispute_id: string }): Promise<PaypalResource> {
  try {
    return await fetchDispute(client, resource.dispute_id)
  } catch (error) {
    if (!isPaypalCallError(error) || error.httpStatus !== 403) throw error
    warnForbidden(client, error.paypal.name, error.paypal.debug_id)
    return resource
  }
}

/** Keeps PayPal's view of a dispute in `record.paywire_disputes`, one entry per dispute id, replaced by a newer one. */
export function recordDispute (record: Record<string, any>, dispute: PaypalResource): void {
  if (typeof dispute.dispute_id !== 'string') return
  const disputes = (record.paywire_disputes ??= []) as Array<Record<string, unknown>>
  const kept: Record<string, unknown> = { dispute_id: dispute.dispute_id, status: dispute.status, reason: dispute.reason, dispute_amount: dispute.dispute_amount }
  if (typeof dispute.update_time === 'string') kept.update_time = dispute.update_time
  const outcome = dispute.dispute_outcome?.outcome_code
  if (typeof outcome === 'string') kept.outcome_code = outcome
  const refunded = dispute.dispute_outcome?.amount_refunded
  if (typeof refunded === 'object' && refunded !== null) kept.amount_refunded = refunded
  const index = disputes.findIndex((entry) => entry.dispute_id === dispute.dispute_id)
  if (index === -1) disputes.push(kept)
  // An older view (a late GET) never replaces a newer one.
  else if (String(disputes[index]?.update_time ?? '') <= String(kept.update_time ?? '')) disputes[index] = kept
}

/*
 * PayPal's "List disputes" (https://developer.paypal.com/api/customer-disputes/v1/disputes-list):
 * `disputed_transaction_id` filters by the sale or capture, `page_size` is at most 50, and each item
 * carries only summary fields (dispute_id, reason, status, dispute_state, dispute_life_cycle_stage,
 * dispute_channel, dispute_amount, create_time, update_time): no outcome, so a dispute that is new or
 * moved on is read in full with `GET /v1/customer/disputes/{id}`, as a webhook's is.
 */
const PAGE_SIZE = 50

async function listedDisputes (client: PaypalRestClient, transactionId: string): Promise<Array<Record<string, any>>> {
  const answer = await client.request('GET', `/v1/customer/disputes?disputed_transaction_id=${encodeURIComponent(transactionId)}&page_size=${PAGE_SIZE}`)
  return Array.isArray(answer.items) ? answer.items : []
}

/** A listed dispute is news when none is recorded under its id, or PayPal's listing is newer or says another status. */
export function isDisputeNews (record: Record<string, any>, listed: Record<string, any>): boolean {
  const entries = disputeEntries(record)
  const kept = entries.find((entry) => entry.dispute_id === listed.dispute_id)
  if (kept === undefined) return true
  // Forward only: a listing older than what is kept is no news. PayPal's times are to the second,
  // so within one second only the status tells.
  const listedTime = String(listed.update_time ?? '')
  const keptTime = String(kept.update_time ?? '')
  if (listedTime !== keptTime) return listedTime > keptTime
  return listed.status !== kept.status
}

/**
 * What a Sync reads of disputes when their webhooks never came: PayPal's list for each disputed
 * transaction (sale or capture), and each dispute that is new or moved on fetched and recorded by the
 * webhook's own path (fetchDispute, recordDispute), so the status, amounts and events are the same
 * whichever way PayPal's news arrives. Nothing new, nothing written.
 *
 * A merchant app without the Disputes feature gets 403 NOT_AUTHORIZED from the list
 * (https://developer.paypal.com/api/rest/troubleshooting/rest_not_authorized/, issue PERMISSION_DENIED:
 * https://developer.paypal.com/api/customer-disputes/v1/errors/permission_denied). That does not fail
 * the Sync, whose payment half already happened: the record says disputes could not be read
 * (`paywire_disputes_unreadable`, PayPal's error name), a warning is logged once per gateway, and
 * the Sync carries on. A later list that answers clears the mark. Any other failure still fails the Sync.
 */
export async function syncDisputes (client: PaypalRestClient, record: Record<string, any>, transactionIds: readonly string[]): Promise<void> {
  for (const transactionId of new Set(transactionIds)) {
    let listed: Array<Record<string, any>>
    try {
      listed = await listedDisputes(client, transactionId)
    } catch (error) {
      if (!isPaypalCallError(error) || error.httpStatus !== 403) throw error
      unreadable(client, record, error.paypal.name, error.paypal.debug_id)
      return
    }
    if (record.paywire_disputes_unreadable !== undefined) delete record.paywire_disputes_unreadable
    for (const summary of listed) {
      if (typeof summary.dispute_id !== 'string' || !isDisputeNews(record, summary)) continue
      recordDispute(record, await fetchDispute(client, summary.dispute_id))
    }
  }
}

function unreadable (client: PaypalRestClient, record: Record<string, any>, name: string, debugId: string | undefined): void {
  // Written once: a mark already there is no news, so the next Sync writes nothing.
  if (record.paywire_disputes_unreadable !== name) record.paywire_disputes_unreadable = name
  warnForbidden(client, name, debugId)
}

function warnForbidden (client: PaypalRestClient, name: string, debugId: string | undefined): void {
  client.warnOnce('disputes-forbidden', { status: 403, name, debugId },
    'paywire: PayPal refused to read disputes (the app lacks the Disputes permission): going on without PayPal\'s current view of them')
}

/** Outcomes that leave the money with the shop. */
const WON: ReadonlySet<string> = new Set(['RESOLVED_SELLER_FAVOUR', 'CANCELED_BY_BUYER', 'DENIED'])

/** The disputes a record holds, in the engine's words: open until RESOLVED; won or lost by PayPal's outcome. */
export function paypalDisputes (record: Record<string, any>): PaymentDispute[] {
  const entries = disputeEntries(record)
  return entries.map((entry) => {
    const state: PaymentDispute['state'] = entry.status !== 'RESOLVED' ? 'open' : WON.has(entry.outcome_code) ? 'won' : 'lost'
    const dispute: PaymentDispute = { id: String(entry.dispute_id), state }
    const { value, currency_code: currency } = (entry.dispute_amount ?? {}) as Record<string, unknown>
    if (typeof value === 'string' && typeof currency === 'string') {
      try {
        dispute.amount = fromPaypalAmount(value, currency)
      } catch {}
    }
    if (typeof entry.reason === 'string') dispute.reason = entry.reason
    return dispute
  })
}

/*
 * Outcomes by which the shop's money went back to the buyer (https://developer.paypal.com/api/customer-disputes/v1/definitions/dispute_outcome:
 * RESOLVED_BUYER_FAVOUR, and ACCEPTED: the merchant accepted the claim); `amount_refunded` is "the amount that
 * either the merchant or PayPal refunds the customer". RESOLVED_WITH_PAYOUT is paid by PayPal, not the shop.
 */
const MONEY_TAKEN_BACK: ReadonlySet<string> = new Set(['RESOLVED_BUYER_FAVOUR', 'ACCEPTED'])

function takenBack (entry: Record<string, any>): boolean {
  return entry.status === 'RESOLVED' && MONEY_TAKEN_BACK.has(entry.outcome_code)
}

/**
 * What disputes the shop lost took back, in minor units: PayPal's `amount_refunded`, else the disputed
 * amount. A lost dispute's money may reach Paywire first by CUSTOMER.DISPUTE.RESOLVED or first by
 * the API's REVERSED event (PayPal sends both, in any order): the gateways count the larger of the
 * two, so it is counted when either arrives and never twice.
 */
export function lostDisputesAmount (record: Record<string, any>): number {
  const entries = disputeEntries(record)
  let total = 0
  for (const entry of entries.filter(takenBack)) {
    const { value, currency_code: currency } = (entry.amount_refunded ?? entry.dispute_amount ?? {}) as Record<string, unknown>
    if (typeof value !== 'string' || typeof currency !== 'string') continue
    try {
      total += fromPaypalAmount(value, currency)
    } catch {}
  }
  return total
}

/**
 * How much of the refunds PayPal lists that Paywire did not make is the money lost disputes took back:
 * a capture's reversal is a refund resource (PAYMENT.CAPTURE.REVERSED's, https://developer.paypal.com/api/rest/webhooks/event-names/)
 * and the order lists it among its captures' refunds, so a Sync that learns of a lost dispute before
 * (or without) the REVERSED webhook would otherwise count that money refunded, where the webhook
 * counts it reversed. At most what lost disputes took and the reversals already recorded do not explain.
 */
export function lostDisputesAmong (foreignRefunded: number, recordedReversed: number, record: Record<string, any>): number {
  return Math.min(foreignRefunded, Math.max(0, lostDisputesAmount(record) - recordedReversed))
}

/** The reversed amount with lost disputes counted: the larger of the two, and never more than is left of the money taken. */
export function reversedWithDisputes (reversed: number, record: Record<string, any>, captured: number, refunded: number): number {
  return Math.max(reversed, Math.min(lostDisputesAmount(record), Math.max(0, captured - refunded)))
}

/**
 * While a dispute is open on money the shop took, the money is contested: suspended (Payum's name).
 * Money taken back (a reversal PayPal reported, or a dispute lost) leaves a captured payment
 * refunded, the amounts saying reversed: Payments v1 lists no sale state for it
 * (payments_payment_v1's sale states are completed, partially_refunded, pending, refunded, denied),
 * and a lost dispute may be heard of before PayPal's view of the money changes.
 */
export function withDisputes (status: HumanStatusValue, record: Record<string, any>): HumanStatusValue {
  if (status !== HumanStatus.CAPTURED && status !== HumanStatus.REFUNDED) return status
  // On every status read (each view taken reads two): the entries' own status, not paypalDisputes()'s amounts.
  const disputes = disputeEntries(record)
  if (disputes.some((entry) => entry.status !== 'RESOLVED')) return HumanStatus.SUSPENDED
  if (status !== HumanStatus.CAPTURED) return status
  const reversed = Array.isArray(record.paywire_reversals) && record.paywire_reversals.length > 0
  return reversed || lostDisputesAmount(record) > 0 ? HumanStatus.REFUNDED : status
}
