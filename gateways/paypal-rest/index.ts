export * as paypalRestErrorCodes from './errors.ts'
export { PaypalRestGatewayFactory, PAYPAL_REST_FACTORY_NAME, type PaypalRestGatewayOptions } from './factory.ts'
export { paypalRestGateway } from './plugin.ts'
export { PaypalRestApi } from './api.ts'
// The shared PayPal layer, re-exported so `paywire/gateways/paypal-rest` keeps every name it had.
export {
  DEFAULT_WEBHOOK_MAX_AGE_SECONDS, PaypalRestConfig, PAYPAL_HOSTS, PaypalRestClient, isPaypalCallError, type CallOptions, type PaypalCallError,
  type PaypalError, type PaypalResource, MAX_REMEMBERED_TRANSMISSIONS, PaypalWebhookVerifier, type WebhookVerifierOptions,
  toPaypalAmount, toPaypalTotal, fromPaypalAmount, PAYPAL_CURRENCIES, PAYPAL_MAX_INTEGER_DIGITS, PAYPAL_ZERO_DECIMAL_CURRENCIES
} from '../paypal-shared/index.ts'
export { Amount, Payer, PaymentDetails, RedirectUrls, Transaction, PAYMENT_DETAILS_ID_PROPERTY } from './model/payment-details.ts'
export { paypalStatus } from './details.ts'
export { paypalAmounts } from './amounts.ts'
export { PaypalViews, type ViewSource } from './views.ts'
export { CaptureAction } from './actions/capture-action.ts'
export { ConvertPaymentAction } from './actions/convert-payment-action.ts'
export { StatusAction } from './actions/status-action.ts'
export { SyncAction } from './actions/sync-action.ts'
export { RefundAction, type RefundEntry } from './actions/refund-action.ts'
export { CancelAction } from './actions/cancel-action.ts'
export { NotifyAction } from './actions/notify-actions.ts'
export { RestWebhookLocator } from './webhook-locator.ts'
export { LocateWebhookAction, NotifyNullAction, PaypalWebhookLocator, type WebhookLocation } from '../paypal-shared/index.ts'
export { PaypalWebhookNotify, type PaypalWebhookEvent } from '../paypal-shared/index.ts'
