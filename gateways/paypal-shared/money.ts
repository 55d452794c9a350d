import { errorCodes, formatMinorUnits, getCurrency, parseToMinorUnits } from '../../plugins/core/engine/index.ts'
import { PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE, PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED } from './errors.ts'

/**
 * PayPal refuses decimals for these currencies even where ISO 4217 has them (HUF and TWD
 * have an exponent of 2): amounts must be whole units.
 */
export const PAYPAL_ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['HUF', 'JPY', 'TWD'])

/**
 * The currencies PayPal's REST API takes (PayPal's currency-codes reference, paypal-wire §7;
 * the simulator refuses the rest alike). Some are for in-country accounts only (BRL, INR,
 * MYR…): PayPal decides those per account, so they pass here.
 */
export const PAYPAL_CURRENCIES: ReadonlySet<string> = new Set([
  'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'INR', 'JPY', 'MYR', 'MXN',
  'TWD', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'RUB', 'SGD', 'SEK', 'CHF', 'THB', 'USD'
])

/** v1 amounts: at most 7 digits before the decimal point, whatever the currency (JPY included). */
export const PAYPAL_MAX_INTEGER_DIGITS = 7

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

/**
 * A payment's total as PayPal will take it: in a currency PayPal accepts, more than zero and
 * within 7 digits before the decimal point. Refused here, before any call, because PayPal
 * would refuse it and the payment would end failed for an amount the shop could correct.
 */
export function toPaypalTotal (amount: number, currencyCode: string): string {
  const currency = getCurrency(currencyCode).alpha3
  assertPaypalCurrency(currency)
  const total = toPaypalAmount(amount, currency)
  assertPaypalTotal(total, currency)
  return total
}

export function assertPaypalCurrency (currency: string): void {
  if (!PAYPAL_CURRENCIES.has(currency)) {
    throw new PAYWIRE_ERR_PAYPAL_CURRENCY_NOT_SUPPORTED(currency.slice(0, 8), [...PAYPAL_CURRENCIES].sort().join(', '))
  }
}

/** `total` is PayPal's amount string for `currency`, formatted by toPaypalAmount (or a shop's own, checked alike). */
export function assertPaypalTotal (total: string, currency: string): void {
  const decimals = PAYPAL_ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2
  const largest = `${'9'.repeat(PAYPAL_MAX_INTEGER_DIGITS)}${decimals === 0 ? '' : '.99'}`
  const limit = `more than 0 and at most ${largest} ${currency} (${PAYPAL_MAX_INTEGER_DIGITS} digits before the decimal point, ${decimals === 0 ? 'no decimals' : `${decimals} decimals`})`
  const [units = '', fraction = ''] = total.split('.')
  const shaped = /^\d+$/.test(units) && (fraction === '' ? !total.includes('.') : /^\d+$/.test(fraction)) && fraction.length <= decimals
  if (!shaped || units.replace(/^0+(?=\d)/, '').length > PAYPAL_MAX_INTEGER_DIGITS || !/[1-9]/.test(total)) {
    throw new PAYWIRE_ERR_PAYPAL_AMOUNT_OUT_OF_RANGE(total.slice(0, 32), currency.slice(0, 8), limit)
  }
}

/** PayPal's amount string → integer minor units. */
export function fromPaypalAmount (total: string, currencyCode: string): number {
  return parseToMinorUnits(total, getCurrency(currencyCode).alpha3)
}
