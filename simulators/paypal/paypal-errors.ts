// Names, statuses and messages as PayPal sends them (paypal-wire §1, §2.6; v1 spec error_4xx/5xx).
export const PAYPAL_ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'Invalid request - see details' },
  MALFORMED_REQUEST: { status: 400, message: 'The request JSON is not well formed.' },
  PAYMENT_NOT_APPROVED_FOR_EXECUTION: { status: 400, message: 'Payer has not approved payment' },
  PAYMENT_ALREADY_DONE: { status: 400, message: 'Payment has been done already for this cart.' },
  PAYMENT_STATE_INVALID: { status: 400, message: 'This request is invalid due to the current state of the payment' },
  PAYMENT_EXPIRED: { status: 400, message: 'The payment is expired.' },
  INVALID_PAYER_ID: { status: 400, message: 'Payer ID is invalid' },
  INSTRUMENT_DECLINED: {
    status: 400,
    message: "The instrument presented was either declined by the processor or bank, or it can't be used for this payment."
  },
  TRANSACTION_REFUSED: { status: 400, message: 'The request was refused' },
  DUPLICATE_TRANSACTION: { status: 400, message: 'Duplicate invoice Id detected.' },
  DUPLICATE_REQUEST_ID: { status: 400, message: 'The value of PayPal-Request-Id header has already been used.' },
  WEBHOOK_URL_ALREADY_EXISTS: { status: 400, message: 'Webhook URL already exists.' },
  AUTHENTICATION_FAILURE: {
    status: 401,
    message: 'Authentication failed due to missing authorization header, or invalid authentication credentials.'
  },
  INVALID_RESOURCE_ID: { status: 404, message: 'The requested resource ID was not found' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'The specified resource does not exist.' },
  RESOURCE_CONFLICT: { status: 409, message: 'The server has detected a conflict while processing this request.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The server does not support the request payload's media type." },
  RATE_LIMIT_REACHED: { status: 429, message: 'Too many requests. Blocked due to rate limiting.' },
  INTERNAL_SERVICE_ERROR: { status: 500, message: 'An internal service error has occurred' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service Unavailable.' }
} as const

export type PaypalErrorName = keyof typeof PAYPAL_ERRORS

export interface PaypalErrorDetail {
  field: string
  issue: string
}

export interface PaypalErrorBody {
  name: PaypalErrorName
  message: string
  debug_id: string
  information_link: string
  details?: PaypalErrorDetail[]
}

/** Thrown by route handlers; the simulator's error handler turns it into PayPal's v1 error body. */
export class PaypalApiError extends Error {
  readonly errorName: PaypalErrorName
  readonly statusCode: number
  readonly details: PaypalErrorDetail[] | undefined

  constructor (errorName: PaypalErrorName, details?: PaypalErrorDetail[]) {
    super(PAYPAL_ERRORS[errorName].message)
    this.errorName = errorName
    this.statusCode = PAYPAL_ERRORS[errorName].status
    this.details = details
  }
}

export function validationError (details: PaypalErrorDetail[]): PaypalApiError {
  return new PaypalApiError('VALIDATION_ERROR', details)
}

export function paypalErrorBody (errorName: PaypalErrorName, debugId: string, details?: PaypalErrorDetail[]): PaypalErrorBody {
  const body: PaypalErrorBody = {
    name: errorName,
    message: PAYPAL_ERRORS[errorName].message,
    debug_id: debugId,
    information_link: `https://developer.paypal.com/webapps/developer/docs/api/#${errorName}`
  }
  if (details !== undefined) body.details = details
  return body
}

// OAuth endpoints answer with the OAuth error shape instead (paypal-wire §1).
export interface OAuthErrorBody {
  error: 'invalid_client' | 'invalid_token' | 'unsupported_grant_type'
  error_description: string
}

export class OAuthError extends Error {
  readonly statusCode: number
  readonly body: OAuthErrorBody

  constructor (statusCode: number, body: OAuthErrorBody) {
    super(body.error_description)
    this.statusCode = statusCode
    this.body = body
  }
}
