import type { Payment } from '../model/payment.ts'
import { AbstractStorage } from './abstract-storage.ts'
import { paymentSearchOf } from './payment-query.ts'
import type { Storage } from './storage.ts'
import { PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED } from '../errors.ts'

/** Payments read per storage call while reindexing. */
const PAGE = 100

export interface ReindexReport {
  /** Payments read. */
  payments: number
  /** Payments whose facets were stored (the others name no gateway: no payment to search). */
  indexed: number
}

/**
 * Stores the facets of every stored payment, read again through its gateway's reader: for
 * payments written before the search existed (their commits stored no facets), or after the
 * attention thresholds changed. Reads every payment, page by page: a maintenance step, run
 * once after upgrading (`await app.paywire.reindexPayments()`), never by a search. Facets of
 * a payment written meanwhile are never replaced by older ones (each carries its record's
 * version); a payment deleted while it runs may be indexed again — run it while none are deleted.
 */
export async function reindexPayments (storage: Storage<Payment>): Promise<ReindexReport> {
  const search = paymentSearchOf(storage, storage.modelName)
  if (!(storage instanceof AbstractStorage) || storage.facetsOf === undefined || search.indexPayment === undefined) {
    throw new PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED(storage.modelName)
  }
  const report: ReindexReport = { payments: 0, indexed: 0 }
  for (let offset = 0; ; offset += PAGE) {
    const page = await storage.findBy({}, { offset, limit: PAGE })
    for (const payment of page) {
      report.payments++
      const { id } = storage.identify(payment)
      // The record as stored (a Payment's own fields), without the stamps a write would add.
      const record = JSON.parse(JSON.stringify(payment)) as Record<string, unknown>
      const facets = storage.facetsOf({ storage, id, record, json: null, expectedVersion: 0, stamps: {} })
      if (facets === undefined) continue
      await search.indexPayment(id, storage.versionOf(payment) as number, facets)
      report.indexed++
    }
    if (page.length < PAGE) return report
  }
}
