import { assertMinorUnits, getCurrency } from '../../plugins/core/engine/index.ts'
import { PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED } from './errors.ts'

/*
 * Stripe's amounts are integers in the currency's smallest unit as Stripe counts it
 * (https://docs.stripe.com/currencies#zero-decimal), which is not always ISO 4217's minor unit,
 * Paywire's. Where the two differ, amounts are converted here; an amount Stripe cannot take is
 * refused before any call (PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED), never rounded.
 */

/** Zero-decimal for Stripe: the amount is in whole units (https://docs.stripe.com/currencies#zero-decimal). */
export const STRIPE_ZERO_DECIMAL: ReadonlySet<string> = new Set([
  'BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF'
])
/** Three-decimal for Stripe, whose last digit must be 0 (https://docs.stripe.com/currencies#three-decimal). */
export const STRIPE_THREE_DECIMAL: ReadonlySet<string> = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND'])
/** "The amount value supports up to eight digits" (https://docs.stripe.com/api/payment_intents/object#payment_intent_object-amount). */
export const STRIPE_MAX_AMOUNT = 99_999_999

/** Digits after the decimal point in Stripe's amounts for a currency (ISK stays two-decimal at Stripe: https://docs.stripe.com/currencies#special-cases). */
export function stripeExponent (currency: string): number {
  const code = currency.toUpperCase()
  if (STRIPE_ZERO_DECIMAL.has(code)) return 0
  return STRIPE_THREE_DECIMAL.has(code) ? 3 : 2
}

/** Paywire's minor units → Stripe's amount: 1999 EUR → 1999, 500 ISK → 50000, 100000 MGA → 1000. */
export function toStripeAmount (amount: number, currencyCode: string): number {
  assertMinorUnits(amount)
  const { alpha3, exp } = getCurrency(currencyCode)
  const shift = stripeExponent(alpha3) - exp
  const scale = 10 ** Math.abs(shift)
  if (shift < 0 && amount % scale !== 0) {
    throw new PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED(String(amount), alpha3, `Stripe takes whole ${alpha3} amounts only (a multiple of ${scale} minor units)`)
  }
  const stripe = shift < 0 ? amount / scale : amount * scale
  if (STRIPE_THREE_DECIMAL.has(alpha3) && stripe % 10 !== 0) {
    throw new PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED(String(amount), alpha3, 'Stripe takes three-decimal amounts whose last digit is 0')
  }
  if (stripe > STRIPE_MAX_AMOUNT) throw new PAYWIRE_ERR_STRIPE_AMOUNT_NOT_SUPPORTED(String(amount), alpha3, `Stripe takes at most eight digits (${STRIPE_MAX_AMOUNT})`)
  return stripe
}

/** Stripe's amount → Paywire's minor units (the inverse of toStripeAmount; a fraction of an ISO unit is dropped, never invented). */
export function fromStripeAmount (amount: number, currencyCode: string): number {
  const { alpha3, exp } = getCurrency(currencyCode)
  const shift = stripeExponent(alpha3) - exp
  return shift > 0 ? Math.floor(amount / 10 ** shift) : amount * 10 ** -shift
}
