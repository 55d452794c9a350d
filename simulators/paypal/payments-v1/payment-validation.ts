import {
  amountIssue, isPaypalCurrency, normaliseAmount, toMinorUnits, UNSUPPORTED_CURRENCY_ISSUE
} from '../runtime/amounts.ts'
import { validationError } from '../runtime/errors.ts'
import type { PaypalErrorDetail } from '../runtime/errors.ts'
import { INVALID_ISSUE, isHttpUrl, isJsonObject, REQUIRED_ISSUE, requestObject } from '../runtime/validation.ts'
import type { JsonObject } from '../runtime/validation.ts'

// Issue texts as PayPal's v1 API words them in recorded responses (paypal-wire §2.1, §2.6).
export const TOO_LONG_ISSUE = 'Length is more than maximum allowed'
export const ZERO_AMOUNT_ISSUE = 'Amount cannot be zero'
const REDIRECT_URLS_ISSUE = "This field required when payment_method is 'paypal'"
const DETAILS_SUM_ISSUE = 'Transaction amount details (subtotal, tax, shipping) must add up to specified amount total'
const ITEMS_SUM_ISSUE = 'Item amount must add up to specified amount subtotal (or total if amount details not specified)'
const SINGLE_TRANSACTION_ISSUE = 'Only single payment transaction currently supported'

const DETAIL_FIELDS = ['subtotal', 'shipping', 'tax', 'handling_fee', 'shipping_discount', 'insurance', 'gift_wrap'] as const
const ITEM_QUANTITY = /^\d{1,10}$/
// The v1 spec's shipping_address: line1 and country_code required, strings of these lengths at
// most (postal_code has no limit there, only its type is checked).
const ADDRESS_LIMITS = { recipient_name: 127, line1: 300, line2: 300, city: 64, state: 300, phone: 50, postal_code: Number.MAX_SAFE_INTEGER } as const
const COUNTRY_CODE = /^([A-Z]{2}|C2)$/

export class Issues {
  readonly details: PaypalErrorDetail[] = []

  add (field: string, issue: string): void {
    this.details.push({ field, issue })
  }

  maxLength (object: JsonObject, field: string, prefix: string, limit: number): void {
    const value = object[field]
    if (value === undefined) return
    if (typeof value !== 'string') this.add(prefix + field, INVALID_ISSUE)
    else if (value.length > limit) this.add(prefix + field, TOO_LONG_ISSUE)
  }

  throwIfAny (): void {
    if (this.details.length > 0) throw validationError(this.details)
  }
}

export interface CreatePaymentInput {
  /** transactions[0] as PayPal echoes it. */
  transaction: JsonObject
  currency: string
  totalMinor: number
  returnUrl: string
  cancelUrl: string
  noteToPayer?: string
}

interface CheckedAmount {
  amount: JsonObject
  currency: string
  totalMinor: number
  /** What items must add up to: subtotal when details are given, else the total. */
  itemsTargetMinor: number
}

function checkAmount (issues: Issues, amount: unknown, prefix: string): CheckedAmount | undefined {
  if (!isJsonObject(amount)) {
    issues.add(`${prefix}.amount`, REQUIRED_ISSUE)
    return undefined
  }
  const { currency, total, details } = amount
  if (!isPaypalCurrency(currency)) {
    issues.add(`${prefix}.amount.currency`, currency === undefined ? REQUIRED_ISSUE : UNSUPPORTED_CURRENCY_ISSUE)
    return undefined
  }
  const totalIssue = amountIssue(total, currency)
  if (totalIssue !== undefined) {
    issues.add(`${prefix}.amount.total`, total === undefined ? REQUIRED_ISSUE : totalIssue)
    return undefined
  }
  const totalMinor = toMinorUnits(total as string, currency)
  if (totalMinor === 0) issues.add(`${prefix}.amount.total`, ZERO_AMOUNT_ISSUE)
  const normalised: JsonObject = { total: normaliseAmount(total as string, currency), currency }
  if (details === undefined) return { amount: normalised, currency, totalMinor, itemsTargetMinor: totalMinor }
  if (!isJsonObject(details)) {
    issues.add(`${prefix}.amount.details`, INVALID_ISSUE)
    return undefined
  }

  const normalisedDetails: Record<string, string> = {}
  let detailsMinor = 0
  for (const field of DETAIL_FIELDS) {
    const value = details[field]
    if (value === undefined) continue
    const issue = amountIssue(value, currency, field === 'shipping_discount')
    if (issue !== undefined) {
      issues.add(`${prefix}.amount.details.${field}`, issue)
      continue
    }
    normalisedDetails[field] = normaliseAmount(value as string, currency)
    detailsMinor += toMinorUnits(value as string, currency)
  }
  if (detailsMinor !== totalMinor) issues.add(`${prefix}.amount`, DETAILS_SUM_ISSUE)
  normalised.details = normalisedDetails
  const subtotal = normalisedDetails.subtotal
  return {
    amount: normalised,
    currency,
    totalMinor,
    itemsTargetMinor: subtotal === undefined ? totalMinor : toMinorUnits(subtotal, currency)
  }
}

function checkShippingAddress (issues: Issues, address: unknown, prefix: string): void {
  const field = `${prefix}.item_list.shipping_address`
  if (!isJsonObject(address)) {
    issues.add(field, INVALID_ISSUE)
    return
  }
  for (const required of ['line1', 'country_code']) {
    if (address[required] === undefined) issues.add(`${field}.${required}`, REQUIRED_ISSUE)
  }
  for (const [name, limit] of Object.entries(ADDRESS_LIMITS)) issues.maxLength(address, name, `${field}.`, limit)
  const country = address.country_code
  if (country !== undefined && (typeof country !== 'string' || !COUNTRY_CODE.test(country))) issues.add(`${field}.country_code`, INVALID_ISSUE)
}

function checkItems (issues: Issues, itemList: unknown, prefix: string, checked: CheckedAmount): JsonObject | undefined {
  if (itemList === undefined) return undefined
  const shippingAddress = isJsonObject(itemList) ? itemList.shipping_address : undefined
  if (shippingAddress !== undefined) checkShippingAddress(issues, shippingAddress, prefix)
  const items = isJsonObject(itemList) ? itemList.items : undefined
  // An item list may carry only the shipping address (what PATCH adds to a payment without items).
  if (items === undefined && shippingAddress !== undefined) return itemList as JsonObject
  if (!Array.isArray(items)) {
    issues.add(`${prefix}.item_list`, INVALID_ISSUE)
    return undefined
  }
  const { currency } = checked
  let itemsMinor = 0
  let valid = true
  const normalisedItems = items.map((item: unknown, index) => {
    const field = `${prefix}.item_list.items[${index}]`
    if (!isJsonObject(item)) {
      issues.add(field, INVALID_ISSUE)
      valid = false
      return item
    }
    const { quantity, price } = item
    const priceIssue = amountIssue(price, currency, true)
    const quantityValid = typeof quantity === 'string' && ITEM_QUANTITY.test(quantity)
    if (!quantityValid) issues.add(`${field}.quantity`, INVALID_ISSUE)
    if (priceIssue !== undefined) issues.add(`${field}.price`, priceIssue)
    if (item.currency !== currency) issues.add(`${field}.currency`, 'Currency of item must match the transaction currency')
    if (!quantityValid || priceIssue !== undefined) {
      valid = false
      return item
    }
    itemsMinor += toMinorUnits(price as string, currency) * Number(quantity)
    return { ...item, price: normaliseAmount(price as string, currency) }
  })
  if (valid && itemsMinor !== checked.itemsTargetMinor) issues.add(prefix, ITEMS_SUM_ISSUE)
  return { ...itemList as JsonObject, items: normalisedItems }
}

function checkTransactions (issues: Issues, transactions: unknown): { checked: CheckedAmount, transaction: JsonObject } | undefined {
  if (!Array.isArray(transactions) || transactions.length === 0) {
    issues.add('transactions', REQUIRED_ISSUE)
    return undefined
  }
  if (transactions.length > 1) issues.add('transactions', SINGLE_TRANSACTION_ISSUE)
  const prefix = 'transactions[0]'
  const transaction: unknown = transactions[0]
  if (!isJsonObject(transaction)) {
    issues.add(prefix, INVALID_ISSUE)
    return undefined
  }
  for (const field of ['description', 'custom', 'invoice_number']) issues.maxLength(transaction, field, `${prefix}.`, 127)
  issues.maxLength(transaction, 'note_to_payee', `${prefix}.`, 255)
  const checked = checkAmount(issues, transaction.amount, prefix)
  if (checked === undefined) return undefined
  const echoed: JsonObject = { ...transaction, amount: checked.amount }
  const itemList = checkItems(issues, transaction.item_list, prefix, checked)
  if (itemList !== undefined) echoed.item_list = itemList
  // PayPal truncates rather than refuses an over-long soft descriptor.
  if (typeof transaction.soft_descriptor === 'string') echoed.soft_descriptor = transaction.soft_descriptor.slice(0, 22)
  delete echoed.related_resources
  return { checked, transaction: echoed }
}

function checkRedirectUrls (issues: Issues, redirectUrls: unknown): { returnUrl: string, cancelUrl: string } | undefined {
  if (!isJsonObject(redirectUrls)) {
    issues.add('redirect_urls', REDIRECT_URLS_ISSUE)
    return undefined
  }
  const { return_url: returnUrl, cancel_url: cancelUrl } = redirectUrls
  for (const [field, value] of [['return_url', returnUrl], ['cancel_url', cancelUrl]] as const) {
    if (!isHttpUrl(value)) issues.add(`redirect_urls.${field}`, value === undefined ? REQUIRED_ISSUE : INVALID_ISSUE)
  }
  return isHttpUrl(returnUrl) && isHttpUrl(cancelUrl) ? { returnUrl, cancelUrl } : undefined
}

export interface CheckedTransaction {
  /** As PayPal echoes it, amounts normalised. */
  transaction: JsonObject
  currency: string
  totalMinor: number
}

/** Checks a transaction changed by PATCH with the rules of create. */
export function parseUpdatedTransaction (transaction: JsonObject): CheckedTransaction {
  const issues = new Issues()
  const checked = checkTransactions(issues, [transaction])
  issues.throwIfAny()
  const { checked: amount, transaction: echoed } = checked as NonNullable<typeof checked>
  return { transaction: echoed, currency: amount.currency, totalMinor: amount.totalMinor }
}

/** Checks a create-payment body the way PayPal does, reporting every issue at once. */
export function parseCreatePayment (body: unknown): CreatePaymentInput {
  const request = requestObject(body)
  const issues = new Issues()
  if (request.intent === undefined) issues.add('intent', REQUIRED_ISSUE)
  else if (request.intent !== 'sale') issues.add('intent', "Value is invalid (the simulator implements intent 'sale' only)")

  const { payer } = request
  if (!isJsonObject(payer)) issues.add('payer', REQUIRED_ISSUE)
  else if (payer.payment_method === undefined) issues.add('payer.payment_method', REQUIRED_ISSUE)
  else if (payer.payment_method !== 'paypal') {
    issues.add('payer.payment_method', "Value is invalid (the simulator implements payment_method 'paypal' only)")
  }
  const redirect = isJsonObject(payer) && payer.payment_method === 'paypal'
    ? checkRedirectUrls(issues, request.redirect_urls)
    : undefined
  const transaction = checkTransactions(issues, request.transactions)
  issues.maxLength(request, 'note_to_payer', '', 165)
  issues.throwIfAny()

  // No issues means every part above was checked and found valid.
  const { checked, transaction: echoed } = transaction as NonNullable<typeof transaction>
  const { returnUrl, cancelUrl } = redirect as NonNullable<typeof redirect>
  const input: CreatePaymentInput = {
    transaction: echoed,
    currency: checked.currency,
    totalMinor: checked.totalMinor,
    returnUrl,
    cancelUrl
  }
  if (typeof request.note_to_payer === 'string') input.noteToPayer = request.note_to_payer
  return input
}

export function parseExecutePayment (body: unknown): { payerId: string } {
  const { payer_id: payerId } = requestObject(body)
  if (typeof payerId !== 'string' || payerId === '') throw validationError([{ field: 'payer_id', issue: REQUIRED_ISSUE }])
  return { payerId }
}
