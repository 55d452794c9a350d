// PayPal's REST currency list (paypal-wire §7). Anything else is refused as PayPal would.
export const PAYPAL_CURRENCIES: ReadonlySet<string> = new Set([
  'AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'INR', 'JPY', 'MYR', 'MXN',
  'TWD', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'RUB', 'SGD', 'SEK', 'CHF', 'THB', 'USD'
])

// PayPal refuses decimals for exactly these three (paypal-wire §7, PHP SDK formatter).
const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set(['HUF', 'JPY', 'TWD'])

export const AMOUNT_FORMAT_ISSUE = "Currency amount must be non-negative number, may optionally contain exactly 2 decimal places separated by '.', optional thousands separator ',', limited to 7 digits before the decimal point"
export const NO_DECIMALS_ISSUE = 'Currency does not support decimals.'
export const UNSUPPORTED_CURRENCY_ISSUE = 'Currency code is invalid or is not currently supported'

// v1 amounts: at most 10 characters, "seven digits before the decimal point, the decimal point,
// two digits after"; currencies like JPY take no decimals, so their limit is seven digits too.
const MAX_AMOUNT_LENGTH = 10
const TWO_DECIMAL_AMOUNT = /^-?\d{1,7}(\.\d{1,2})?$/
const ZERO_DECIMAL_AMOUNT = /^-?\d{1,7}$/

export function isPaypalCurrency (currency: unknown): currency is string {
  return typeof currency === 'string' && PAYPAL_CURRENCIES.has(currency)
}

export function currencyExponent (currency: string): number {
  return ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2
}

/**
 * Returns PayPal's issue text when `value` is not an amount PayPal accepts for `currency`,
 * or undefined when it is. Only discounts (shipping_discount, item prices) may be negative.
 */
export function amountIssue (value: unknown, currency: string, allowNegative = false): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_AMOUNT_LENGTH) return AMOUNT_FORMAT_ISSUE
  if (!allowNegative && value.startsWith('-')) return AMOUNT_FORMAT_ISSUE
  if (currencyExponent(currency) === 0) {
    if (ZERO_DECIMAL_AMOUNT.test(value)) return undefined
    return TWO_DECIMAL_AMOUNT.test(value) ? NO_DECIMALS_ISSUE : AMOUNT_FORMAT_ISSUE
  }
  return TWO_DECIMAL_AMOUNT.test(value) ? undefined : AMOUNT_FORMAT_ISSUE
}

/** Converts an amount already accepted by `amountIssue` into integer minor units. */
export function toMinorUnits (value: string, currency: string): number {
  const exponent = currencyExponent(currency)
  const negative = value.startsWith('-')
  const [whole = '0', fraction = ''] = (negative ? value.slice(1) : value).split('.')
  const minor = Number(whole) * 10 ** exponent + Number(fraction.padEnd(exponent, '0'))
  return negative ? -minor : minor
}

export function formatMinorUnits (minor: number, currency: string): string {
  const exponent = currencyExponent(currency)
  const sign = minor < 0 ? '-' : ''
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0')
  if (exponent === 0) return sign + digits
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}

/** PayPal echoes "7" as "7.00" (and JPY "500" as "500"). */
export function normaliseAmount (value: string, currency: string): string {
  return formatMinorUnits(toMinorUnits(value, currency), currency)
}
