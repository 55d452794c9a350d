import currencyCodes from 'currency-codes'
import { PAYWIRE_ERR_INVALID_AMOUNT, PAYWIRE_ERR_UNKNOWN_CURRENCY } from './errors.ts'

/*
 * Money is an integer in the currency's minor units plus an ISO 4217 code. Conversion to
 * and from decimal strings uses the currency's exponent (JPY 0, EUR 2, BHD 3) and string
 * arithmetic, never floating point.
 */

export interface Currency {
  alpha3: string
  numeric: string
  name: string
  /** Digits after the decimal separator. */
  exp: number
  countries: string[]
}

export function findCurrency (code: string | number): Currency | undefined {
  const text = String(code).trim().toUpperCase()
  const record = /^\d{1,3}$/.test(text) ? currencyCodes.number(text.padStart(3, '0')) : currencyCodes.code(text)
  if (record === undefined) return undefined
  // A copy: the package's records are shared by every lookup in the process.
  return { alpha3: record.code, numeric: record.number, name: record.currency, exp: record.digits, countries: [...record.countries] }
}

export function getCurrency (code: string | number): Currency {
  const currency = findCurrency(code)
  if (currency === undefined) throw new PAYWIRE_ERR_UNKNOWN_CURRENCY(String(code).slice(0, 16))
  return currency
}

export function isMinorUnits (amount: unknown): amount is number {
  return typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0
}

export function assertMinorUnits (amount: unknown): asserts amount is number {
  if (!isMinorUnits(amount)) throw new PAYWIRE_ERR_INVALID_AMOUNT(String(amount).slice(0, 32))
}

/** 1234 EUR → "12.34"; 500 JPY → "500"; 5 EUR → "0.05". */
export function formatMinorUnits (amount: number, currencyCode: string): string {
  assertMinorUnits(amount)
  const { exp } = getCurrency(currencyCode)
  if (exp === 0) return String(amount)
  const digits = String(amount).padStart(exp + 1, '0')
  return `${digits.slice(0, -exp)}.${digits.slice(-exp)}`
}

/** "12.34" EUR → 1234; "7" EUR → 700; "500" JPY → 500. More decimals than the currency has is an error. */
export function parseToMinorUnits (decimal: string, currencyCode: string): number {
  const { exp } = getCurrency(currencyCode)
  const match = /^(\d+)(?:\.(\d*))?$/.exec(decimal.trim())
  const fraction = match?.[2] ?? ''
  if (match === null || fraction.length > exp) throw new PAYWIRE_ERR_INVALID_AMOUNT(JSON.stringify(decimal).slice(0, 32))
  const amount = Number(`${match[1]}${fraction.padEnd(exp, '0')}`)
  assertMinorUnits(amount)
  return amount
}
