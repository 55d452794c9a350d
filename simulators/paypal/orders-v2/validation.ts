import { currencyExponent, formatMinorUnits, isPaypalCurrency } from '../runtime/amounts.ts'
import { issue, PaypalV2Error, type V2ErrorDetail } from './errors.ts'

type Json = Record<string, unknown>

export function isObject (value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

// checkout_orders_v2.json `money.value`: at most 32 characters.
const MONEY_VALUE = /^((-?[0-9]+)|(-?([0-9]+)?[.][0-9]+))$/
const BREAKDOWN_ADDED = ['item_total', 'shipping', 'handling', 'tax_total', 'insurance'] as const
const BREAKDOWN_TAKEN = ['shipping_discount', 'discount'] as const
const INTENTS: ReadonlySet<string> = new Set(['CAPTURE', 'AUTHORIZE'])

/**
 * The request issues PayPal refuses as 422 UNPROCESSABLE_ENTITY, not 400: the body is well formed but
 * its numbers do not agree (checkout_orders_v2.json `orders.patch-422`, payments_payment_v2.json
 * `captures.refund-422`; https://developer.paypal.com/api/rest/reference/orders/v2/errors/).
 */
const UNPROCESSABLE_ISSUES: ReadonlySet<string> = new Set([
  'AMOUNT_MISMATCH', 'ITEM_TOTAL_MISMATCH', 'ITEM_TOTAL_REQUIRED', 'DECIMAL_PRECISION', 'CANNOT_BE_ZERO_OR_NEGATIVE', 'CURRENCY_MISMATCH'
])

/** Collects request issues as JSON pointers into the body, as v2 reports them: 400 INVALID_REQUEST first, then 422. */
export class V2Issues {
  readonly details: V2ErrorDetail[] = []

  add (issueName: string, field: string, value?: unknown): void {
    this.details.push(issue(issueName, { field, location: 'body', ...(typeof value === 'string' ? { value } : {}) }))
  }

  text (object: Json, key: string, pointer: string, max: number, required = false): string | undefined {
    const value = object[key]
    if (value === undefined) {
      if (required) this.add('MISSING_REQUIRED_PARAMETER', pointer)
      return undefined
    }
    if (typeof value !== 'string') this.add('INVALID_PARAMETER_SYNTAX', pointer)
    else if (value.length < 1 || value.length > max) this.add('INVALID_STRING_LENGTH', pointer, value)
    else return value
    return undefined
  }

  /** A money object's value in minor units of `currency`; undefined (and an issue) when it is not one. */
  money (value: unknown, pointer: string, currency: string | undefined): number | undefined {
    if (!isObject(value)) {
      this.add(value === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_SYNTAX', pointer)
      return undefined
    }
    const code = value.currency_code
    if (typeof code !== 'string') {
      this.add('MISSING_REQUIRED_PARAMETER', `${pointer}/currency_code`)
      return undefined
    }
    if (!isPaypalCurrency(code)) {
      this.add('CURRENCY_NOT_SUPPORTED', `${pointer}/currency_code`, code)
      return undefined
    }
    if (currency !== undefined && code !== currency) {
      this.add('CURRENCY_MISMATCH', `${pointer}/currency_code`, code)
      return undefined
    }
    const amount = value.value
    if (typeof amount !== 'string' || amount.length > 32 || !MONEY_VALUE.test(amount) || amount.startsWith('-')) {
      this.add(amount === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_SYNTAX', `${pointer}/value`, amount)
      return undefined
    }
    const [whole = '0', fraction = ''] = amount.split('.')
    const exponent = currencyExponent(code)
    if (fraction.length > exponent) {
      this.add('DECIMAL_PRECISION', `${pointer}/value`, amount)
      return undefined
    }
    return Number(whole) * 10 ** exponent + Number(fraction.padEnd(exponent, '0'))
  }

  throwIfAny (): void {
    // A body that breaks the schema is refused before its numbers are looked at.
    const invalid = this.details.filter((detail) => !UNPROCESSABLE_ISSUES.has(detail.issue))
    if (invalid.length > 0) throw new PaypalV2Error('INVALID_REQUEST', invalid)
    if (this.details.length > 0) throw new PaypalV2Error('UNPROCESSABLE_ENTITY', this.details)
  }
}

/** A money object as PayPal echoes it: "7" becomes "7.00", JPY "500" stays "500". */
export function money (minor: number, currency: string): { currency_code: string, value: string } {
  return { currency_code: currency, value: formatMinorUnits(minor, currency) }
}

export interface CreateOrderInput {
  intent: 'CAPTURE' | 'AUTHORIZE'
  purchaseUnit: Json
  currency: string
  totalMinor: number
  returnUrl: string | undefined
  cancelUrl: string | undefined
  /** `payment_source.paypal` was given: the order waits for the buyer as PAYER_ACTION_REQUIRED. */
  withPaymentSource: boolean
}

function checkBreakdown (issues: V2Issues, amount: Json, totalMinor: number, currency: string, items: unknown): void {
  const breakdown = amount.breakdown
  const pointer = '/purchase_units/@reference_id==\'default\'/amount'
  let itemTotal: number | undefined
  if (isObject(breakdown)) {
    let sum = 0
    for (const key of [...BREAKDOWN_ADDED, ...BREAKDOWN_TAKEN]) {
      if (breakdown[key] === undefined) continue
      const part = issues.money(breakdown[key], `${pointer}/breakdown/${key}`, currency) ?? 0
      sum += (BREAKDOWN_TAKEN as readonly string[]).includes(key) ? -part : part
      if (key === 'item_total') itemTotal = part
    }
    if (issues.details.length === 0 && sum !== totalMinor) issues.add('AMOUNT_MISMATCH', `${pointer}/value`)
  }
  if (!Array.isArray(items)) return
  let itemsSum = 0
  items.forEach((item, index) => {
    const itemPointer = `/purchase_units/@reference_id=='default'/items/${index}`
    if (!isObject(item)) {
      issues.add('INVALID_PARAMETER_SYNTAX', itemPointer)
      return
    }
    issues.text(item, 'name', `${itemPointer}/name`, 127, true)
    const quantity = issues.text(item, 'quantity', `${itemPointer}/quantity`, 10, true)
    if (quantity !== undefined && !/^[1-9][0-9]{0,9}$/.test(quantity)) issues.add('INVALID_PARAMETER_VALUE', `${itemPointer}/quantity`, quantity)
    const unit = issues.money(item.unit_amount, `${itemPointer}/unit_amount`, currency) ?? 0
    itemsSum += unit * Number(quantity ?? 0)
  })
  // Items need an item_total, and the two must agree.
  if (issues.details.length > 0) return
  if (itemTotal === undefined) issues.add('ITEM_TOTAL_REQUIRED', `${pointer}/breakdown/item_total`)
  else if (itemsSum !== itemTotal) issues.add('ITEM_TOTAL_MISMATCH', `${pointer}/breakdown/item_total`)
}

function experienceUrls (issues: V2Issues, body: Json): { returnUrl: string | undefined, cancelUrl: string | undefined } {
  const source = body.payment_source
  const paypal = isObject(source) ? source.paypal : undefined
  const context = isObject(paypal) ? paypal.experience_context : undefined
  if (!isObject(context)) return { returnUrl: undefined, cancelUrl: undefined }
  const pointer = '/payment_source/paypal/experience_context'
  const urls: { returnUrl: string | undefined, cancelUrl: string | undefined } = { returnUrl: undefined, cancelUrl: undefined }
  for (const [key, target] of [['return_url', 'returnUrl'], ['cancel_url', 'cancelUrl']] as const) {
    const url = issues.text(context, key, `${pointer}/${key}`, 4000)
    if (url !== undefined && !URL.canParse(url)) issues.add('INVALID_PARAMETER_SYNTAX', `${pointer}/${key}`, url)
    else urls[target] = url
  }
  issues.text(context, 'brand_name', `${pointer}/brand_name`, 127)
  const action = context.user_action
  if (action !== undefined && action !== 'CONTINUE' && action !== 'PAY_NOW') issues.add('INVALID_PARAMETER_VALUE', `${pointer}/user_action`, action)
  return urls
}

/** POST /v2/checkout/orders, one purchase unit (what Paywire sends), checked as PayPal checks it. */
export function parseCreateOrder (body: unknown): CreateOrderInput {
  const issues = new V2Issues()
  if (!isObject(body)) {
    issues.add('MISSING_REQUIRED_PARAMETER', '/intent')
    issues.throwIfAny()
  }
  const request = body as Json
  const intent = request.intent
  if (typeof intent !== 'string' || !INTENTS.has(intent)) issues.add(intent === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_VALUE', '/intent', intent)
  const units = request.purchase_units
  if (!Array.isArray(units) || units.length !== 1 || !isObject(units[0])) {
    issues.add(units === undefined ? 'MISSING_REQUIRED_PARAMETER' : 'INVALID_PARAMETER_VALUE', '/purchase_units')
    issues.throwIfAny()
  }
  const unit = (units as Json[])[0] as Json
  const pointer = '/purchase_units/@reference_id==\'default\''
  const totalMinor = issues.money(unit.amount, `${pointer}/amount`, undefined)
  const currency = isObject(unit.amount) ? unit.amount.currency_code as string : ''
  if (totalMinor !== undefined) checkBreakdown(issues, unit.amount as Json, totalMinor, currency, unit.items)
  for (const key of ['invoice_id', 'custom_id', 'description', 'reference_id']) issues.text(unit, key, `${pointer}/${key}`, key === 'reference_id' ? 256 : 127)
  const urls = experienceUrls(issues, request)
  issues.throwIfAny()
  const echoed: Json = { ...unit, reference_id: unit.reference_id ?? 'default', amount: { ...unit.amount as Json, ...money(totalMinor as number, currency) } }
  const source = request.payment_source
  const withPaymentSource = isObject(source) && isObject(source.paypal)
  return { intent: intent as 'CAPTURE' | 'AUTHORIZE', purchaseUnit: echoed, currency, totalMinor: totalMinor as number, ...urls, withPaymentSource }
}

/** An optional `amount` in a capture or refund body, in minor units of `currency`. */
export function parseOptionalAmount (body: unknown, currency: string): { amountMinor: number | undefined, fields: Json } {
  const request = isObject(body) ? body : {}
  const issues = new V2Issues()
  const amountMinor = request.amount === undefined ? undefined : issues.money(request.amount, '/amount', currency)
  if (amountMinor === 0) issues.add('CANNOT_BE_ZERO_OR_NEGATIVE', '/amount/value')
  for (const key of ['invoice_id', 'note_to_payer', 'custom_id']) issues.text(request, key, `/${key}`, 255)
  issues.throwIfAny()
  return { amountMinor, fields: request }
}
