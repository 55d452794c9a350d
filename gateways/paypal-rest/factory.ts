import {
  CoreGatewayFactory, HttpClient, Logger, StorageRegistry, autowire, factory, get, serviceId,
  type ActionEntry, type ContainerConfiguration
} from '../../plugins/core/engine/index.ts'
import { CancelAction } from './actions/cancel-action.ts'
import { CaptureAction } from './actions/capture-action.ts'
import { ConvertPaymentAction } from './actions/convert-payment-action.ts'
import { NotifyAction, NotifyNullAction } from './actions/notify-actions.ts'
import { RefundAction } from './actions/refund-action.ts'
import { StatusAction } from './actions/status-action.ts'
import { SyncAction } from './actions/sync-action.ts'
import { PaypalRestApi } from './api.ts'
import { PaypalRestConfig } from './config.ts'
import { PaypalWebhookVerifier } from './webhook-verifier.ts'

export const PAYPAL_REST_FACTORY_NAME = 'paypal_rest'

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
      [serviceId(PaypalRestConfig)]: factory((container) => new PaypalRestConfig({
        gatewayName: container.get('paywire.gateway_name'),
        clientId: container.get('paypal_rest.client_id'),
        clientSecret: container.get('paypal_rest.client_secret'),
        configPath: container.get('paypal_rest.config_path'),
        config: container.get('paypal_rest.config'),
        webhookId: container.get('paypal_rest.webhook_id'),
        webhookVerification: container.get('paypal_rest.webhook_verification')
      })),
      [serviceId(PaypalRestApi)]: autowire(PaypalRestApi).constructor(get(PaypalRestConfig), get(HttpClient), get(Logger)),
      [serviceId(PaypalWebhookVerifier)]: autowire(PaypalWebhookVerifier)
        .constructor(get(PaypalRestConfig), get(PaypalRestApi), get(HttpClient)),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructorParameter('api', get(PaypalRestApi)),
      [serviceId(SyncAction)]: autowire(SyncAction).constructorParameter('api', get(PaypalRestApi)),
      [serviceId(RefundAction)]: autowire(RefundAction).constructorParameter('api', get(PaypalRestApi)),
      [serviceId(NotifyNullAction)]: autowire(NotifyNullAction)
        .constructor(get(PaypalWebhookVerifier), get(PaypalRestApi), get(StorageRegistry), get(Logger))
    }
  }

  override getActions (): ActionEntry[] {
    return [
      ...super.getActions(),
      ConvertPaymentAction,
      CaptureAction,
      StatusAction,
      SyncAction,
      RefundAction,
      CancelAction,
      NotifyNullAction,
      NotifyAction
    ]
  }
}
