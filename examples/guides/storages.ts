/*
 * Storages (docs/storages.md): one storage per model class, created by the storage backend
 * (memory here; Redis or PostgreSQL through their plugins), versioned compare-and-set writes.
 * Run: npx tsx --conditions=paywire-source examples/guides/storages.ts
 */
import { MemoryStorage, MemoryStorageBackend, Payment, PaywireBuilder, isErrorCode } from 'paywire/engine'

/** An application's own model: any class with a string id property. */
export class Invoice {
  id: string | undefined = undefined
  customer = ''
  total = 0
}

export async function main (): Promise<{ found: number | undefined, byTotal: number, conflict: boolean, paymentStored: boolean }> {
  const paywire = new PaywireBuilder()
    .setStorageBackend(new MemoryStorageBackend())
    .addDefaultStorages() // Payment, Payout, DetailsRecord and the tokens, from the backend
    .addStorage(Invoice, new MemoryStorage(Invoice, { indexes: ['customer'] }))
    .getPaywire()
  try {
    const invoices = paywire.getStorage(Invoice)
    const invoice = invoices.create()
    invoice.customer = 'C-1'
    invoice.total = 4200
    await invoices.update(invoice) // gives it an id
    const found = await invoices.find(invoice.id as string)
    const byTotal = (await invoices.findBy({ customer: 'C-1' })).length

    // A copy read before another write is refused: PAYWIRE_ERR_CONCURRENT_UPDATE.
    const stale = await invoices.find(invoice.id as string) as Invoice
    invoice.total = 4300
    await invoices.update(invoice)
    stale.total = 1
    const conflict = await invoices.update(stale).then(() => false, (error: unknown) => isErrorCode(error, 'PAYWIRE_ERR_CONCURRENT_UPDATE'))

    const payments = paywire.getStorage(Payment)
    const payment = Object.assign(payments.create(), { number: 'ORDER-7', totalAmount: 999, currencyCode: 'EUR' })
    await payments.update(payment)
    return { found: found?.total, byTotal, conflict, paymentStored: (await payments.find(payment.id as string)) !== null }
  } finally {
    await paywire.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
