import type { PaypalRecord } from './details.ts'
import { assertPaypalCurrency, assertPaypalTotal } from './money.ts'

/**
 * What PayPal would refuse in a payment about to be created, refused before the call: the
 * payment stays new (nothing written, no request id used), and the shop can correct it.
 * Runs on every create, so a REST details record the shop filled in itself is checked as a
 * converted Payment is.
 */
export function assertSendable (record: PaypalRecord): void {
  const transactions: unknown[] = Array.isArray(record.transactions) ? record.transactions : []
  for (const transaction of transactions) {
    const { total, currency } = ((transaction as { amount?: unknown } | null)?.amount ?? {}) as { total?: unknown, currency?: unknown }
    assertPaypalCurrency(String(currency))
    assertPaypalTotal(String(total), String(currency))
  }
}
