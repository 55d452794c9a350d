import { PaypalError } from '../runtime/errors.ts'
import type { Link } from '../runtime/types.ts'

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
  links: Link[]
}

/**
 * The descriptions PayPal sends with the issues the simulator raises, as checkout_orders_v2.json and
 * payments_payment_v2.json word them (their `orders.*-4xx` / `captures.refund-422` … error schemas) or,
 * for the issues without such a schema, PayPal's errors pages
 * (https://developer.paypal.com/api/rest/reference/orders/v2/errors/, …/payments/v2/errors/).
 */
export const ISSUE_DESCRIPTIONS: Record<string, string> = {
  INVALID_RESOURCE_ID: 'Specified resource ID does not exist. Please check the resource ID and try again.',
  MISSING_REQUIRED_PARAMETER: 'A required field / parameter is missing.',
  INVALID_PARAMETER_VALUE: 'The value of a field is invalid.',
  INVALID_PARAMETER_SYNTAX: 'The value of a field does not conform to the expected format.',
  INVALID_STRING_LENGTH: 'The value of a field is either too short or too long.',
  MALFORMED_REQUEST_JSON: 'The request JSON is not well formed.',
  CURRENCY_NOT_SUPPORTED: 'Currency code is not currently supported. Please refer https://developer.paypal.com/docs/api/reference/currency-codes/ for list of supported currency codes.',
  DECIMAL_PRECISION: 'If the currency supports decimals, only two decimal place precision is supported.',
  AMOUNT_MISMATCH: 'Should equal item_total + tax_total + shipping + handling + insurance - shipping_discount - discount.',
  ITEM_TOTAL_MISMATCH: 'Should equal sum of (unit_amount * quantity) across all items for a given purchase_unit.',
  ITEM_TOTAL_REQUIRED: 'If item details are specified (items.unit_amount and items.quantity) corresponding amount.breakdown.item_total is required.',
  CANNOT_BE_ZERO_OR_NEGATIVE: 'Must be greater than zero. If the currency supports decimals, only two decimal place precision is supported.',
  ORDER_NOT_APPROVED: 'Payer has not yet approved the Order for payment. Please redirect the payer to the \'rel\':\'approve\' url returned as part of the HATEOAS links within the Create Order call or provide a valid `payment_source` in the request.',
  ORDER_ALREADY_CAPTURED: 'Order already captured. If \'intent=CAPTURE\' only one capture per order is allowed.',
  ORDER_ALREADY_AUTHORIZED: 'Order already authorized. If \'intent=AUTHORIZE\' only one authorization per order is allowed.',
  ORDER_ALREADY_COMPLETED: 'The order cannot be patched after it is completed.',
  ORDER_EXPIRED: 'Order is expired and hence cannot be authorized. Please contact Customer Support if you need to increase your order validity period.',
  ACTION_DOES_NOT_MATCH_INTENT: 'Order was created with an intent of \'CAPTURE\'. Please use /v2/checkout/orders/order_id/capture to complete the transaction or alternately create an order with an intent of \'AUTHORIZE\'.',
  INSTRUMENT_DECLINED: 'The instrument presented  was either declined by the processor or bank, or it can\'t be used for this payment.',
  PAYER_ACTION_REQUIRED: 'Transaction cannot complete successfully, instruct the buyer to return to PayPal.',
  DUPLICATE_INVOICE_ID: 'Duplicate Invoice ID detected. To avoid a potential duplicate transaction your account setting requires that Invoice Id be unique for each transaction.',
  FIELD_NOT_PATCHABLE: 'Field cannot be patched.',
  INVALID_PATCH_OPERATION: 'The operation cannot be honored. Cannot add a property that\'s already present, use replace. Cannot remove a property thats not present, use add. Cannot replace a property thats not present, use add.',
  INVALID_JSON_POINTER_FORMAT: 'Path should be a valid JSON Pointer https://tools.ietf.org/html/rfc6901 that references a location within the request where the operation is performed.',
  PATCH_VALUE_REQUIRED: 'Please specify a \'value\' to for the field that is being patched.',
  PATCH_PATH_REQUIRED: 'Please specify a \'path\' for the field for which the operation needs to be performed.',
  REFERENCE_ID_NOT_FOUND: 'Filter expression value is incorrect. Please check the value of the reference_id and try again.',
  AUTHORIZATION_VOIDED: 'A voided authorization cannot be captured or reauthorized. ',
  AUTHORIZATION_ALREADY_CAPTURED: 'Authorization has previously been captured.',
  AUTHORIZATION_DENIED: 'A denied authorization cannot be captured.',
  PREVIOUSLY_CAPTURED: 'Authorization has been previously captured and hence cannot be voided.',
  PREVIOUSLY_VOIDED: 'Authorization has been previously voided and hence cannot be voided again.',
  CANNOT_BE_VOIDED: 'A reauthorization cannot be voided. Please void the original parent authorization.',
  REAUTHORIZATION_TOO_SOON: 'A reauthorization is only allowed once from Day 4 to Day 29 since the date of the original authorization.',
  REAUTHORIZATION_NOT_SUPPORTED: 'A reauthorize cannot be attempted on an authorization_id that is the result of a prior reauthorization or on an authorization made on an Order saved using the `v2/orders/id/save` API.',
  AUTH_CURRENCY_MISMATCH: 'The currency specified during reauthorization should be the same as the currency specified in the original authorization. Please check the currency of the authorization for which you are trying to reauthorize and try again.',
  MAX_CAPTURE_AMOUNT_EXCEEDED: 'Capture amount exceeds allowable limit.',
  CAPTURE_FULLY_REFUNDED: 'The capture has already been fully refunded',
  REFUND_AMOUNT_EXCEEDED: 'The refund amount must be less than or equal to the capture amount that has not yet been refunded.',
  REFUND_NOT_ALLOWED: 'Capture cannot be refunded.',
  PENDING_CAPTURE: 'Cannot initiate a refund as the capture is pending. Capture is typically pending when the payer has funded the transaction using e-check/bank funded.',
  CURRENCY_MISMATCH: 'Currency of capture must be the same as currency of authorization.'
}

/** Thrown by v2 handlers; the simulator's error handler sends `body()` with this request's debug id. */
export class PaypalV2Error extends PaypalError {
  readonly errorName: V2ErrorName
  readonly statusCode: number
  readonly details: V2ErrorDetail[]

  readonly links: Link[]

  constructor (errorName: V2ErrorName, details: V2ErrorDetail[], links: Link[] = []) {
    super(V2_ERRORS[errorName].message)
    this.errorName = errorName
    this.statusCode = V2_ERRORS[errorName].status
    this.details = details
    this.links = links
  }

  body (debugId: string): V2ErrorBody {
    return {
      name: this.errorName,
      message: this.message,
      debug_id: debugId,
      details: this.details,
      links: [
        ...this.details.map((detail) => ({
          href: `https://developer.paypal.com/docs/api/orders/v2/#error-${detail.issue}`, rel: 'information_link', method: 'GET'
        })),
        ...this.links
      ]
    }
  }
}

export function issue (issueName: string, extra: Omit<V2ErrorDetail, 'issue' | 'description'> = {}): V2ErrorDetail {
  return { ...extra, issue: issueName, description: ISSUE_DESCRIPTIONS[issueName] as string }
}

/** 422 with one issue: PayPal's business refusals (`links` adds to the information links, e.g. `redirect`). */
export function unprocessable (issueName: string, links: Link[] = []): PaypalV2Error {
  return new PaypalV2Error('UNPROCESSABLE_ENTITY', [issue(issueName)], links)
}

export function notFound (): PaypalV2Error {
  return new PaypalV2Error('RESOURCE_NOT_FOUND', [issue('INVALID_RESOURCE_ID', { location: 'path' })])
}
