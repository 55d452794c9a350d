import { errorCodes, formatMinorUnits, getCurrency, parseToMinorUnits } from '../../plugins/core/engine/index.ts'

/**
 * PayPal refuses decimals for these currencies even where ISO 4217 has them (HUF and TWD
 * have an exponent of 2): amounts must be whole units.
 */
export const PAYPAL_ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['HUF', 'JPY', 'TWD'])

/** Integer minor units → PayPal's amount string: 1999 EUR → "19.99", 500 JPY → "500", 150000 HUF → "1500". */
export function toPaypalAmount (amount: number, currencyCode: string): string {
  const currency = getCurrency(currencyCode).alpha3
  const formatted = formatMinorUnits(amount, currency)
  if (!PAYPAL_ZERO_DECIMAL_CURRENCIES.has(currency)) return formatted
  const [units, fraction = ''] = formatted.split('.')
  if (/[1-9]/.test(fraction)) {
    throw new errorCodes.PAYWIRE_ERR_INVALID_AMOUNT(`${amount} ${currency} (PayPal accepts whole ${currency} amounts only)`)
  }
  return units as string
}

/** PayPal's amount string → integer minor units. */
export function fromPaypalAmount (total: string, currencyCode: string): number {
  return parseToMinorUnits(total, getCurrency(currencyCode).alpha3)
}
