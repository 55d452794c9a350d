import { CoreGatewayFactory, autowire, get, type ActionEntry, type ContainerConfiguration } from '../../plugins/core/engine/index.ts'
import { CancelAction } from './actions/cancel-action.ts'
import { CaptureAction } from './actions/capture-action.ts'
import { ConvertPaymentAction } from './actions/convert-payment-action.ts'
import { NotifyAction } from './actions/notify-actions.ts'
import { RestWebhookLocator } from './webhook-locator.ts'
import { RefundAction } from './actions/refund-action.ts'
import { SyncAction } from './actions/sync-action.ts'
import { PaypalRestApi } from './api.ts'
import { LocateWebhookAction, paypalContainer, type PaypalGatewayOptions } from '../paypal-shared/index.ts'
import { PaypalViews } from './views.ts'
import { PaypalStateReader } from './state-reader.ts'

export const PAYPAL_REST_FACTORY_NAME = 'paypal_rest'

/** The options of a paypal_rest gateway (see PaypalGatewayOptions): the ones every PayPal gateway takes. */
export type PaypalRestGatewayOptions = PaypalGatewayOptions

/**
 * PayPal REST (Payments v1) as a 2.0 gateway factory on the shared PayPal layer: options are
 * container values (`client_id` is `paypal_rest.client_id`), the API object and the webhook
 * verifier are built by the container and injected into the actions' constructors.
 */
export class PaypalRestGatewayFactory extends CoreGatewayFactory {
  readonly optionsPrefix = PAYPAL_REST_FACTORY_NAME

  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      ...paypalContainer({
        prefix: PAYPAL_REST_FACTORY_NAME,
        api: PaypalRestApi,
        views: PaypalViews,
        stateReader: () => new PaypalStateReader(),
        locator: autowire(RestWebhookLocator).constructor(get(PaypalRestApi)),
        actions: [CaptureAction, SyncAction, RefundAction, NotifyAction]
      })
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
