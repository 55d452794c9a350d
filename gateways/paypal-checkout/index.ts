import * as paypalCheckoutErrorCodes from './error-codes.ts'

export { PaypalCheckoutGatewayFactory, PAYPAL_CHECKOUT_FACTORY_NAME, type PaypalCheckoutGatewayOptions } from './factory.ts'
export { paypalCheckoutGateway } from './plugin.ts'
export { PaypalCheckoutApi } from './api.ts'
export { CheckoutSettings } from './settings.ts'
export { CheckoutViews, type CheckoutViewSource } from './views.ts'
export { paypalStatus, checkoutAmounts, type CheckoutRecord } from './record.ts'
export { codedError, issueOf, RECOVERABLE_ISSUES } from './errors.ts'
export { ConvertPaymentAction, clip } from './actions/convert-payment-action.ts'
export { CaptureAction, AuthorizeAction } from './actions/capture-action.ts'
export { PayerFlowAction } from './actions/payer-flow.ts'
export { CancelAction } from './actions/cancel-action.ts'
export { RefundAction, type CheckoutRefundEntry } from './actions/refund-action.ts'
export { StatusAction, SyncAction } from './actions/status-sync-actions.ts'
export { NotifyAction, NotifyNullAction } from './actions/notify-actions.ts'
// One request class for both PayPal gateways' webhooks.
export { PaypalWebhookNotify, type PaypalWebhookEvent } from '../paypal-shared/index.ts'
export { paypalCheckoutErrorCodes }
