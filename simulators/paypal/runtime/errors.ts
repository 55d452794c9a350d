// Names, statuses and messages as PayPal sends them (paypal-wire §1, §2.6; v1 spec error_4xx/5xx):
// the v1 error body every /v1 endpoint both APIs share (OAuth, webhooks) and every fault answers with.
export const COMMON_ERRORS = {
  VALIDATION_ERROR: { status: 400, message: 'Invalid request - see details' },
  MALFORMED_REQUEST: { status: 400, message: 'The request JSON is not well formed.' },
  DUPLICATE_REQUEST_ID: { status: 400, message: 'The value of PayPal-Request-Id header has already been used.' },
  WEBHOOK_URL_ALREADY_EXISTS: { status: 400, message: 'Webhook URL already exists.' },
  AUTHENTICATION_FAILURE: {
    status: 401,
    message: 'Authentication failed due to missing authorization header, or invalid authentication credentials.'
  },
  // The OpenAPI files' error_403 ("Not Authorized Error"), https://developer.paypal.com/api/rest/troubleshooting/rest_not_authorized/
  NOT_AUTHORIZED: { status: 403, message: 'Authorization failed due to insufficient permissions.' },
  INVALID_RESOURCE_ID: { status: 404, message: 'The requested resource ID was not found' },
  RESOURCE_NOT_FOUND: { status: 404, message: 'The specified resource does not exist.' },
  RESOURCE_CONFLICT: { status: 409, message: 'The server has detected a conflict while processing this request.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The server does not support the request payload's media type." },
  RATE_LIMIT_REACHED: { status: 429, message: 'Too many requests. Blocked due to rate limiting.' },
  INTERNAL_SERVICE_ERROR: { status: 500, message: 'An internal service error has occurred' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service Unavailable.' }
} as const

export type CommonErrorName = keyof typeof COMMON_ERRORS

export interface ErrorSpec {
  readonly status: number
  readonly message: string
}

export interface PaypalErrorDetail {
  /** Absent where the issue is about the call, not one of its fields (a missing permission). */
  field?: string
  issue: string
  description?: string
}

export interface PaypalErrorBody<Name extends string = string> {
  name: Name
  message: string
  debug_id: string
  information_link: string
  details?: PaypalErrorDetail[]
}

/** Thrown by hooks and handlers: the simulator's error handler answers with its status and `body()`. */
export abstract class PaypalError extends Error {
  abstract readonly statusCode: number
  abstract body (debugId: string): unknown
}

/** PayPal's v1 error: `{ name, message, debug_id, information_link, details? }`. */
export class PaypalApiError extends PaypalError {
  readonly errorName: string
  readonly statusCode: number
  readonly details: PaypalErrorDetail[] | undefined

  constructor (errorName: string, spec: ErrorSpec, details?: PaypalErrorDetail[]) {
    super(spec.message)
    this.errorName = errorName
    this.statusCode = spec.status
    this.details = details
  }

  body (debugId: string): PaypalErrorBody {
    return paypalErrorBody(this.errorName, this.message, debugId, this.details)
  }
}

export function paypalErrorBody (errorName: string, message: string, debugId: string, details?: PaypalErrorDetail[]): PaypalErrorBody {
  const body: PaypalErrorBody = {
    name: errorName,
    message,
    debug_id: debugId,
    information_link: `https://developer.paypal.com/webapps/developer/docs/api/#${errorName}`
  }
  if (details !== undefined) body.details = details
  return body
}

/** One of the errors both APIs answer with. */
export function apiError (errorName: CommonErrorName, details?: PaypalErrorDetail[]): PaypalApiError {
  return new PaypalApiError(errorName, COMMON_ERRORS[errorName], details)
}

export function validationError (details: PaypalErrorDetail[]): PaypalApiError {
  return apiError('VALIDATION_ERROR', details)
}

/** The body of one of the errors both APIs answer with. */
export function commonErrorBody (errorName: CommonErrorName, debugId: string): PaypalErrorBody {
  return paypalErrorBody(errorName, COMMON_ERRORS[errorName].message, debugId)
}

// OAuth endpoints answer with the OAuth error shape instead (paypal-wire §1).
export interface OAuthErrorBody {
  error: 'invalid_client' | 'invalid_token' | 'unsupported_grant_type'
  error_description: string
}

export class OAuthError extends PaypalError {
  readonly statusCode: number
  readonly #body: OAuthErrorBody

  constructor (statusCode: number, body: OAuthErrorBody) {
    super(body.error_description)
    this.statusCode = statusCode
    this.#body = body
  }

  body (): OAuthErrorBody {
    return this.#body
  }
}
