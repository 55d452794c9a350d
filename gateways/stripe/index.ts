import * as stripeErrorCodes from './error-codes.ts'

export { StripeGatewayFactory, STRIPE_FACTORY_NAME, type StripeGatewayOptions } from './factory.ts'
export { stripeGateway } from './plugin.ts'
export {
  StripeConfig, STRIPE_OPTION_NAMES, DEFAULT_MAX_NETWORK_RETRIES, DEFAULT_TIMEOUT_MS, DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type StripeMode, type StripeOptionName
} from './config.ts'
export { StripeApi } from './api.ts'
export { StripeHttpAdapter } from './http.ts'
export { StripeReads, settleRefundIntents, type RefundIntent } from './reads.ts'
export { StripeViews, type ViewSource } from './views.ts'
export { StripeStateReader } from './state-reader.ts'
export { disputeState, moneyMoved, providerStatus, stripeAmounts, stripeDisputes, stripeStatus, type LocalEnd } from './status.ts'
export { STRIPE_MAX_AMOUNT, STRIPE_THREE_DECIMAL, STRIPE_ZERO_DECIMAL, fromStripeAmount, stripeExponent, toStripeAmount } from './money.ts'
export { recordOf, type StripeRecord } from './record.ts'
export { codedError, isFinalRefusal, isOutcomeUnknown, isStripeError } from './errors.ts'
export { ConvertPaymentAction } from './actions/convert-payment-action.ts'
export { CheckoutFlowAction, paywireMetadata } from './actions/checkout-flow.ts'
export { CaptureAction, AuthorizeAction } from './actions/capture-action.ts'
export { CancelAction } from './actions/cancel-action.ts'
export { RefundAction } from './actions/refund-action.ts'
export { SyncAction, NotifyAction, stripeEventOf } from './actions/sync-notify-actions.ts'
export { PayoutAction } from './actions/payout-action.ts'
export { StripeAction } from './actions/stripe-action.ts'
export { LocateWebhookAction, MONEY_EVENTS, locateEvent, paywirePaymentOf, refuseWebhook, type EventLocation } from './webhook.ts'
export { stripeErrorCodes }
