import {
  CoreGatewayFactory, PaymentStateReader, HttpClient, Logger, StatusTransitions, autowire, factory, get,
  serviceId, type ActionEntry, type ContainerConfiguration
} from '../../plugins/core/engine/index.ts'
import { CancelAction } from './actions/cancel-action.ts'
import { CaptureAction } from './actions/capture-action.ts'
import { ConvertPaymentAction } from './actions/convert-payment-action.ts'
import { NotifyAction } from './actions/notify-actions.ts'
import { RestWebhookLocator } from './webhook-locator.ts'
import { RefundAction } from './actions/refund-action.ts'
import { SyncAction } from './actions/sync-action.ts'
import { PaypalRestApi } from './api.ts'
import {
  DEFAULT_WEBHOOK_MAX_AGE_SECONDS, LocateWebhookAction, NotifyNullAction, PaypalRestConfig, PaypalWebhookLocator, PaypalWebhookVerifier
} from '../paypal-shared/index.ts'
import { PaypalViews } from './views.ts'
import { PaypalStateReader } from './state-reader.ts'

export const PAYPAL_REST_FACTORY_NAME = 'paypal_rest'

/**
 * The options of a paypal_rest gateway, for `satisfies PaypalRestGatewayOptions` in the
 * paywire plugin's `gateways` (which takes any factory's options, so it cannot catch a
 * misspelt key itself). client_id and client_secret are required: empty, they fail boot.
 */
export type PaypalRestGatewayOptions = {
  /** 'paypal_rest', or the name the factory is registered under. */
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
}

/**
 * PayPal REST (Payments v1) as a 2.0 gateway factory: options are container values
 * (`client_id` is `paypal_rest.client_id`), the API object and the webhook verifier are
 * built by the container and injected into the actions' constructors.
 */
export class PaypalRestGatewayFactory extends CoreGatewayFactory {
  readonly optionsPrefix = PAYPAL_REST_FACTORY_NAME

  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      'paypal_rest.client_id': '',
      'paypal_rest.client_secret': '',
      'paypal_rest.config_path': '',
      'paypal_rest.config': {},
      'paypal_rest.webhook_id': '',
      'paypal_rest.webhook_verification': 'online',
      'paypal_rest.webhook_max_age': DEFAULT_WEBHOOK_MAX_AGE_SECONDS,
      'paypal_rest.webhook_trust_anchors': '',
      [serviceId(PaypalRestConfig)]: factory((container) => new PaypalRestConfig({
        gatewayName: container.get('paywire.gateway_name'),
        clientId: container.get('paypal_rest.client_id'),
        clientSecret: container.get('paypal_rest.client_secret'),
        configPath: container.get('paypal_rest.config_path'),
        config: container.get('paypal_rest.config'),
        webhookId: container.get('paypal_rest.webhook_id'),
        webhookVerification: container.get('paypal_rest.webhook_verification'),
        webhookMaxAge: container.get('paypal_rest.webhook_max_age'),
        webhookTrustAnchors: container.get('paypal_rest.webhook_trust_anchors')
      })),
      // Commits read statuses through it to stage payment events.
      [serviceId(PaymentStateReader)]: factory(() => new PaypalStateReader()),
      [serviceId(PaypalRestApi)]: autowire(PaypalRestApi).constructor(get(PaypalRestConfig), get(HttpClient), get(Logger)),
      [serviceId(PaypalWebhookVerifier)]: autowire(PaypalWebhookVerifier)
        .constructor(get(PaypalRestConfig), get(PaypalRestApi), get(HttpClient)),
      // Every path that takes PayPal's view of a payment goes through it, and so through the gateway's transition table.
      [serviceId(PaypalViews)]: autowire(PaypalViews).constructor(get(StatusTransitions), get(Logger), get(PaypalRestConfig)),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructor(get(PaypalRestApi), get(PaypalViews)),
      [serviceId(SyncAction)]: autowire(SyncAction).constructor(get(PaypalRestApi), get(PaypalViews)),
      [serviceId(RefundAction)]: autowire(RefundAction).constructor(get(PaypalRestApi), get(PaypalViews)),
      [serviceId(NotifyAction)]: autowire(NotifyAction).constructor(get(PaypalRestApi), get(PaypalViews)),
      // Webhooks: verified and located here; the notify route runs the payment's Notify.
      [serviceId(PaypalWebhookLocator)]: factory(() => new RestWebhookLocator()),
      [serviceId(LocateWebhookAction)]: autowire(LocateWebhookAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig)),
      [serviceId(NotifyNullAction)]: autowire(NotifyNullAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig))
    }
  }

  override getActions (): ActionEntry[] {
    return [
      ...super.getActions(),
      ConvertPaymentAction,
      CaptureAction,
      SyncAction,
      RefundAction,
      CancelAction,
      LocateWebhookAction,
      NotifyAction
    ]
  }
}
