import { PaypalError } from '../runtime/errors.ts'

// Orders v2 / Payments v2 error bodies: a name per HTTP status, the cause in details[].issue, and
// an information link per issue (checkout_orders_v2.json error_400/404/422 and PayPal's docs).
const V2_ERRORS = {
  INVALID_REQUEST: { status: 400, message: 'Request is not well-formed, syntactically incorrect, or violates schema.' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'The specified resource does not exist.' },
  UNPROCESSABLE_ENTITY: {
    status: 422,
    message: 'The requested action could not be performed, semantically incorrect, or failed business validation.'
  }
} as const

export type V2ErrorName = keyof typeof V2_ERRORS

export interface V2ErrorDetail {
  issue: string
  description: string
  field?: string
  value?: string
  location?: 'body' | 'path' | 'header' | 'query'
}

export interface V2ErrorBody {
  name: V2ErrorName
  message: string
  debug_id: string
  details: V2ErrorDetail[]
  links: Array<{ href: string, rel: 'information_link', method: 'GET' }>
}

/** The descriptions PayPal sends with the issues the simulator raises. */
export const ISSUE_DESCRIPTIONS: Record<string, string> = {
  INVALID_RESOURCE_ID: 'Specified resource ID does not exist. Please check the resource ID and try again.',
  MISSING_REQUIRED_PARAMETER: 'A required field / parameter is missing.',
  INVALID_PARAMETER_VALUE: 'The value of a field is invalid.',
  INVALID_PARAMETER_SYNTAX: 'The value of a field does not conform to the expected format.',
  INVALID_STRING_LENGTH: 'The value of a field is either too short or too long.',
  CURRENCY_NOT_SUPPORTED: 'Currency code is not currently supported. Please refer https://developer.paypal.com/docs/api/reference/currency-codes/ for list of supported currency codes.',
  DECIMAL_PRECISION: 'If the currency supports decimals, only two decimal place precision is supported.',
  AMOUNT_MISMATCH: 'Should equal item_total + tax_total + shipping + handling + insurance - shipping_discount - discount.',
  ITEM_TOTAL_MISMATCH: 'Should equal sum of (unit_amount * quantity) across all items for a given purchase_unit.',
  ORDER_NOT_APPROVED: 'Payer has not yet approved the Order for payment. Please redirect the payer to the \'rel\':\'approve\' url returned as part of the HATEOAS links within the Create Order call or provide a valid payment_source in the request.',
  ORDER_ALREADY_CAPTURED: 'Order already captured. If \'intent=CAPTURE\' only one capture per order is allowed.',
  ORDER_ALREADY_AUTHORIZED: 'Order already authorized. If \'intent=AUTHORIZE\' only one authorization per order is allowed.',
  ORDER_EXPIRED: 'The order has expired.',
  ACTION_DOES_NOT_MATCH_INTENT: 'Order was created with an intent of \'CAPTURE\'. Please use /v2/checkout/orders/order_id/capture to complete the transaction or alternately create an order with an intent of \'AUTHORIZE\'.',
  INSTRUMENT_DECLINED: 'The instrument presented was either declined by the processor or bank, or it can\'t be used for this payment.',
  PAYER_ACTION_REQUIRED: 'Payer needs to perform the following action before proceeding with payment.',
  DUPLICATE_INVOICE_ID: 'Duplicate Invoice ID detected. To avoid a potential duplicate transaction your account setting requires that Invoice Id be unique for each transaction.',
  AUTHORIZATION_VOIDED: 'A voided authorization cannot be captured or reauthorized.',
  AUTHORIZATION_ALREADY_CAPTURED: 'Authorization has been previously captured and hence cannot be voided.',
  PREVIOUSLY_VOIDED: 'Authorization has been previously voided and hence cannot be voided again.',
  CANNOT_BE_VOIDED: 'A reauthorization cannot be voided. Please void the original parent authorization.',
  MAX_CAPTURE_AMOUNT_EXCEEDED: 'Capture amount exceeds allowable limit.',
  CAPTURE_FULLY_REFUNDED: 'The capture has already been fully refunded',
  REFUND_AMOUNT_EXCEEDED: 'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  REFUND_NOT_ALLOWED: 'Refund cannot be issued for this capture.',
  CURRENCY_MISMATCH: 'Currency of capture must be the same as currency of authorization.'
}

/** Thrown by v2 handlers; the simulator's error handler sends `body()` with this request's debug id. */
export class PaypalV2Error extends PaypalError {
  readonly errorName: V2ErrorName
  readonly statusCode: number
  readonly details: V2ErrorDetail[]

  constructor (errorName: V2ErrorName, details: V2ErrorDetail[]) {
    super(V2_ERRORS[errorName].message)
    this.errorName = errorName
    this.statusCode = V2_ERRORS[errorName].status
    this.details = details
  }

  body (debugId: string): V2ErrorBody {
    return {
      name: this.errorName,
      message: this.message,
      debug_id: debugId,
      details: this.details,
      links: this.details.map((detail) => ({
        href: `https://developer.paypal.com/docs/api/orders/v2/#error-${detail.issue}`, rel: 'information_link', method: 'GET'
      }))
    }
  }
}

export function issue (issueName: string, extra: Omit<V2ErrorDetail, 'issue' | 'description'> = {}): V2ErrorDetail {
  return { ...extra, issue: issueName, description: ISSUE_DESCRIPTIONS[issueName] ?? issueName }
}

/** 422 with one issue: PayPal's business refusals. */
export function unprocessable (issueName: string): PaypalV2Error {
  return new PaypalV2Error('UNPROCESSABLE_ENTITY', [issue(issueName)])
}

export function notFound (): PaypalV2Error {
  return new PaypalV2Error('RESOURCE_NOT_FOUND', [issue('INVALID_RESOURCE_ID', { location: 'path' })])
}
