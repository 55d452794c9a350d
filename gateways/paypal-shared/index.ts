/*
 * What the PayPal gateways share, one layer below them: the REST client (OAuth token cache and
 * refresh, retries with backoff, PayPal-Request-Id, error bodies), the sdk_config.ini / `config`
 * options, webhook verification (online and offline) and PayPal's amount format. Each gateway
 * keeps only its own API surface; gateways never import each other.
 */
export { DEFAULT_WEBHOOK_MAX_AGE_SECONDS, PaypalRestConfig, PAYPAL_HOSTS, type LogLevel, type PaypalRestOptions } from './config.ts'
export { PaypalRestClient, isPaypalCallError, type CallOptions, type PaypalCallError, type PaypalError, type PaypalResource } from './client.ts'
export { MAX_REMEMBERED_TRANSMISSIONS, PaypalWebhookVerifier, type WebhookVerifierOptions } from './webhook-verifier.ts'
export { crc32, signedMessage } from './webhook-signature.ts'
export {
  toPaypalAmount, toPaypalTotal, fromPaypalAmount, assertPaypalCurrency, assertPaypalTotal, PAYPAL_CURRENCIES, PAYPAL_MAX_INTEGER_DIGITS,
  PAYPAL_ZERO_DECIMAL_CURRENCIES
} from './money.ts'
export {
  PaypalWebhookNotify, parseWebhookEvent, paypalEventOf, paypalNotification, refuseWebhook, rememberWebhookEvent, seenWebhookEvent, type PaypalWebhookEvent
} from './webhook-event.ts'
export { LocateWebhookAction, NotifyNullAction, PaypalWebhookLocator, type WebhookLocation } from './locate-webhook-action.ts'
export { PaypalViewsBase, providerViewOf, type PaypalRecordReading } from './views.ts'
export { PaypalNotifyAction, recordReversal } from './notify-action.ts'
export { PaypalRefundAction, pendingRefundCount, refundLedgerState, type PaypalRefundEntry, type RefundSettlement } from './refund-action.ts'
export { paypalContainer, type PaypalApiParts, type PaypalGatewayOptions } from './factory-wiring.ts'
export { PaypalSyncAction } from './sync-action.ts'
export {
  disputedCustomId, disputedTransactionId, disputeOfEvent, fetchDispute, isDisputeEvent, isDisputeNews, lostDisputesAmong, lostDisputesAmount, paypalDisputes, recordDispute, reversedWithDisputes, syncDisputes, withDisputes
} from './disputes.ts'
