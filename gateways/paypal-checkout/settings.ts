import { errorCodes } from '../../plugins/core/engine/index.ts'

const SHIPPING_PREFERENCES = ['GET_FROM_FILE', 'NO_SHIPPING', 'SET_PROVIDED_ADDRESS'] as const

/** What the buyer sees at PayPal: the experience context of every order this gateway creates. */
export class CheckoutSettings {
  readonly brandName: string | undefined
  readonly locale: string | undefined
  readonly shippingPreference: (typeof SHIPPING_PREFERENCES)[number]

  constructor (gatewayName: string, options: { brandName: unknown, locale: unknown, shippingPreference: unknown }) {
    this.brandName = optionalText(gatewayName, 'brand_name', options.brandName, 127)
    this.locale = optionalText(gatewayName, 'locale', options.locale, 10)
    if (this.locale !== undefined && !/^[a-z]{2}(?:-[A-Z]{2})?$/.test(this.locale)) {
      throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(`${gatewayName}.locale`, 'a PayPal locale like "en-US"')
    }
    const preference = options.shippingPreference === '' || options.shippingPreference === undefined ? 'NO_SHIPPING' : options.shippingPreference
    if (!SHIPPING_PREFERENCES.includes(preference as never)) {
      throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(`${gatewayName}.shipping_preference`, `one of ${SHIPPING_PREFERENCES.join(', ')}`)
    }
    this.shippingPreference = preference as CheckoutSettings['shippingPreference']
  }

  experienceContext (returnUrl: string, cancelUrl: string): Record<string, string> {
    const context: Record<string, string> = { return_url: returnUrl, cancel_url: cancelUrl, shipping_preference: this.shippingPreference, user_action: 'PAY_NOW' }
    if (this.brandName !== undefined) context.brand_name = this.brandName
    if (this.locale !== undefined) context.locale = this.locale
    return context
  }
}

function optionalText (gatewayName: string, name: string, value: unknown, max: number): string | undefined {
  if (value === undefined || value === '') return undefined
  if (typeof value !== 'string' || value.length > max) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION(`${gatewayName}.${name}`, `a string of at most ${max} characters`)
  return value
}
