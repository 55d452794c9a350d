import { COMMON_ERRORS, PaypalApiError } from '../runtime/errors.ts'
import type { PaypalErrorBody as ErrorBody, PaypalErrorDetail } from '../runtime/errors.ts'

// Payments v1's own refusals (paypal-wire §2.1, §2.6; v1 spec error_4xx), beside the errors both APIs share.
const PAYMENT_ERRORS = {
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
  DUPLICATE_TRANSACTION: { status: 400, message: 'Duplicate invoice Id detected.' }
} as const

const { VALIDATION_ERROR, MALFORMED_REQUEST, ...OTHER_COMMON_ERRORS } = COMMON_ERRORS

/** Every error name a Payments v1 call can answer with, and its status and message (request errors first). */
export const PAYPAL_ERRORS = { VALIDATION_ERROR, MALFORMED_REQUEST, ...PAYMENT_ERRORS, ...OTHER_COMMON_ERRORS } as const

export type PaypalErrorName = keyof typeof PAYPAL_ERRORS

/** PayPal's v1 error body, as any Payments v1 call answers it. */
export type PaypalErrorBody = ErrorBody<PaypalErrorName>

export type { PaypalErrorDetail }

/** Thrown by Payments v1 handlers; the simulator's error handler sends PayPal's v1 error body. */
export function paymentsError (errorName: PaypalErrorName, details?: PaypalErrorDetail[]): PaypalApiError {
  return new PaypalApiError(errorName, PAYPAL_ERRORS[errorName], details)
}
