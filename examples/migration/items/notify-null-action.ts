/* PAYWIREDEP012: the PayPal gateways' NotifyNullAction, which ran webhooks itself. */
import { CoreGatewayFactory, type ActionEntry } from 'paywire/engine'
import {
  CancelAction, CaptureAction, ConvertPaymentAction, LocateWebhookAction, NotifyAction, NotifyNullAction, PaypalRestGatewayFactory, RefundAction, SyncAction
} from 'paywire/gateways/paypal-rest'

// #region before
export class OwnActionListBefore extends PaypalRestGatewayFactory {
  override getActions (): ActionEntry[] {
    return [
      ...new CoreGatewayFactory().getActions(),
      ConvertPaymentAction, CaptureAction, SyncAction, RefundAction, CancelAction, NotifyNullAction, NotifyAction
    ]
  }
}
// #endregion before

// #region after
export class OwnActionListAfter extends PaypalRestGatewayFactory {
  override getActions (): ActionEntry[] {
    return [
      ...new CoreGatewayFactory().getActions(),
      ConvertPaymentAction, CaptureAction, SyncAction, RefundAction, CancelAction, LocateWebhookAction, NotifyAction
    ]
  }
}
// #endregion after
