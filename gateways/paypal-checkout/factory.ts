import {
  CoreGatewayFactory, HttpClient, Logger, PaymentStateReader, StatusTransitions, autowire, factory, get,
  serviceId, type ActionEntry, type ContainerConfiguration
} from '../../plugins/core/engine/index.ts'
import {
  DEFAULT_WEBHOOK_MAX_AGE_SECONDS, LocateWebhookAction, NotifyNullAction, PaypalRestConfig, PaypalWebhookLocator, PaypalWebhookVerifier
} from '../paypal-shared/index.ts'
import { CancelAction } from './actions/cancel-action.ts'
import { AuthorizeAction, CaptureAction } from './actions/capture-action.ts'
import { ConvertPaymentAction } from './actions/convert-payment-action.ts'
import { NotifyAction } from './actions/notify-actions.ts'
import { CheckoutWebhookLocator } from './webhook-locator.ts'
import { RefundAction } from './actions/refund-action.ts'
import { SyncAction } from './actions/status-sync-actions.ts'
import { PaypalCheckoutApi } from './api.ts'
import { CheckoutSettings } from './settings.ts'
import { CheckoutStateReader } from './state-reader.ts'
import { CheckoutViews } from './views.ts'

export const PAYPAL_CHECKOUT_FACTORY_NAME = 'paypal_checkout'

/**
 * The options of a paypal_checkout gateway, for `satisfies PaypalCheckoutGatewayOptions`: the
 * same client, SDK and webhook options as paypal_rest, plus what the buyer sees at PayPal.
 */
export type PaypalCheckoutGatewayOptions = {
  /** 'paypal_checkout', or the name the factory is registered under. */
  factory: string
  client_id: string | undefined
  client_secret: string | undefined
  /** A directory holding sdk_config.ini. */
  config_path?: string
  /** The sdk_config.ini options as a map ('service.EndPoint', mode, 'http.Retry'...); wins over the file. */
  config?: Record<string, unknown>
  webhook_id?: string | undefined
  webhook_verification?: 'online' | 'offline'
  /** PEM of the CAs offline verification trusts; default: Node's bundled roots (PayPal's certificates chain to DigiCert). */
  webhook_trust_anchors?: string | string[]
  /** The shop's name on PayPal's pages (at most 127 characters). */
  brand_name?: string
  /** PayPal's page language, like "en-US". Default: PayPal picks it. */
  locale?: string
  /** GET_FROM_FILE, NO_SHIPPING (default) or SET_PROVIDED_ADDRESS. */
  shipping_preference?: string
}

/**
 * PayPal Checkout (Orders v2, Payments v2) as a 2.0 gateway factory, on the shared PayPal layer
 * (gateways/paypal-shared: REST client, sdk_config.ini options, webhook verifier) that paypal_rest
 * uses too; only the Orders v2 surface is its own.
 */
export class PaypalCheckoutGatewayFactory extends CoreGatewayFactory {
  readonly optionsPrefix = PAYPAL_CHECKOUT_FACTORY_NAME

  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      'paypal_checkout.client_id': '',
      'paypal_checkout.client_secret': '',
      'paypal_checkout.config_path': '',
      'paypal_checkout.config': {},
      'paypal_checkout.webhook_id': '',
      'paypal_checkout.webhook_verification': 'online',
      'paypal_checkout.webhook_max_age': DEFAULT_WEBHOOK_MAX_AGE_SECONDS,
      'paypal_checkout.webhook_trust_anchors': '',
      'paypal_checkout.brand_name': '',
      'paypal_checkout.locale': '',
      'paypal_checkout.shipping_preference': '',
      [serviceId(PaypalRestConfig)]: factory((container) => new PaypalRestConfig({
        gatewayName: container.get('paywire.gateway_name'),
        clientId: container.get('paypal_checkout.client_id'),
        clientSecret: container.get('paypal_checkout.client_secret'),
        configPath: container.get('paypal_checkout.config_path'),
        config: container.get('paypal_checkout.config'),
        webhookId: container.get('paypal_checkout.webhook_id'),
        webhookVerification: container.get('paypal_checkout.webhook_verification'),
        webhookMaxAge: container.get('paypal_checkout.webhook_max_age'),
        webhookTrustAnchors: container.get('paypal_checkout.webhook_trust_anchors')
      })),
      [serviceId(PaymentStateReader)]: factory(() => new CheckoutStateReader()),
      [serviceId(CheckoutSettings)]: factory((container) => new CheckoutSettings(container.get('paywire.gateway_name'), {
        brandName: container.get('paypal_checkout.brand_name'),
        locale: container.get('paypal_checkout.locale'),
        shippingPreference: container.get('paypal_checkout.shipping_preference')
      })),
      [serviceId(PaypalCheckoutApi)]: autowire(PaypalCheckoutApi).constructor(get(PaypalRestConfig), get(HttpClient), get(Logger)),
      [serviceId(PaypalWebhookVerifier)]: autowire(PaypalWebhookVerifier)
        .constructor(get(PaypalRestConfig), get(PaypalCheckoutApi), get(HttpClient)),
      [serviceId(CheckoutViews)]: autowire(CheckoutViews).constructor(get(StatusTransitions), get(Logger), get(PaypalRestConfig)),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews), get(CheckoutSettings)),
      [serviceId(AuthorizeAction)]: autowire(AuthorizeAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews), get(CheckoutSettings)),
      [serviceId(CancelAction)]: autowire(CancelAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews)),
      [serviceId(RefundAction)]: autowire(RefundAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews)),
      [serviceId(SyncAction)]: autowire(SyncAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews)),
      [serviceId(NotifyAction)]: autowire(NotifyAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews)),
      // Webhooks: verified and located here; the notify route runs the payment's Notify.
      [serviceId(PaypalWebhookLocator)]: autowire(CheckoutWebhookLocator).constructor(get(PaypalRestConfig)),
      [serviceId(LocateWebhookAction)]: autowire(LocateWebhookAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig)),
      [serviceId(NotifyNullAction)]: autowire(NotifyNullAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig))
    }
  }

  override getActions (): ActionEntry[] {
    return [
      ...super.getActions(),
      ConvertPaymentAction,
      CaptureAction,
      AuthorizeAction,
      SyncAction,
      RefundAction,
      CancelAction,
      LocateWebhookAction,
      NotifyAction
    ]
  }
}
