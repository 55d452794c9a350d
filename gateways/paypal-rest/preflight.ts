import type { PaypalRecord } from './details.ts'
import { PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED } from './errors.ts'
import { assertPaypalCurrency, assertPaypalTotal } from '../paypal-shared/index.ts'

/**
 * What PayPal would refuse in a payment about to be created, refused before the call: the
 * payment stays new (nothing written, no request id used), and the shop can correct it.
 * Runs on every create, so a REST details record the shop filled in itself is checked as a
 * converted Payment is.
 */
export function assertSendable (record: PaypalRecord): void {
  assertSaleIntent(record.intent)
  const transactions: unknown[] = Array.isArray(record.transactions) ? record.transactions : []
  for (const transaction of transactions) {
    const { total, currency } = ((transaction as { amount?: unknown } | null)?.amount ?? {}) as { total?: unknown, currency?: unknown }
    assertPaypalCurrency(String(currency))
    assertPaypalTotal(String(total), String(currency))
  }
}

/**
 * PayPal's `authorize` and `order` intents need a later capture or void of the authorization
 * (or order), which this gateway does not make: sent, the buyer would approve, execute would
 * leave an authorization nobody captures, and the payment would end unknown. Refused up front.
 */
export function assertSaleIntent (intent: unknown): void {
  if (intent !== undefined && intent !== 'sale') throw new PAYWIRE_ERR_PAYPAL_INTENT_NOT_SUPPORTED(JSON.stringify(intent).slice(0, 32))
}
