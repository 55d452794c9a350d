import { CoreGatewayFactory, autowire, factory, get, serviceId, type ActionEntry, type ContainerConfiguration } from '../../plugins/core/engine/index.ts'
import { LocateWebhookAction, PaypalRestConfig, paypalContainer, type PaypalGatewayOptions } from '../paypal-shared/index.ts'
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
 * options every PayPal gateway takes (see PaypalGatewayOptions), plus what the buyer sees at PayPal.
 */
export type PaypalCheckoutGatewayOptions = PaypalGatewayOptions & {
  /** The shop's name on PayPal's pages (at most 127 characters). */
  brand_name?: string
  /** PayPal's page language, like "en-US". Default: PayPal picks it. */
  locale?: string
  /** GET_FROM_FILE, NO_SHIPPING (default) or SET_PROVIDED_ADDRESS. */
  shipping_preference?: string
}

/**
 * PayPal Checkout (Orders v2, Payments v2) as a 2.0 gateway factory on the shared PayPal layer
 * (gateways/paypal-shared: REST client, options, webhook verifier and locator, views, refund
 * ledger) that paypal_rest uses too; only the Orders v2 surface and the buyer's page settings
 * are its own.
 */
export class PaypalCheckoutGatewayFactory extends CoreGatewayFactory {
  readonly optionsPrefix = PAYPAL_CHECKOUT_FACTORY_NAME

  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      ...paypalContainer({
        prefix: PAYPAL_CHECKOUT_FACTORY_NAME,
        api: PaypalCheckoutApi,
        views: CheckoutViews,
        stateReader: () => new CheckoutStateReader(),
        locator: autowire(CheckoutWebhookLocator).constructor(get(PaypalRestConfig)),
        actions: [CancelAction, RefundAction, SyncAction, NotifyAction]
      }),
      'paypal_checkout.brand_name': '',
      'paypal_checkout.locale': '',
      'paypal_checkout.shipping_preference': '',
      [serviceId(CheckoutSettings)]: factory((container) => new CheckoutSettings(container.get('paywire.gateway_name'), {
        brandName: container.get('paypal_checkout.brand_name'),
        locale: container.get('paypal_checkout.locale'),
        shippingPreference: container.get('paypal_checkout.shipping_preference')
      })),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews), get(CheckoutSettings)),
      [serviceId(AuthorizeAction)]: autowire(AuthorizeAction).constructor(get(PaypalCheckoutApi), get(CheckoutViews), get(CheckoutSettings))
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
