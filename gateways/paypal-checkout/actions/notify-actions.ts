import { PaypalNotifyAction, type PaypalWebhookEvent } from '../../paypal-shared/index.ts'
import type { PaypalCheckoutApi } from '../api.ts'
import { recordOf, type CheckoutRecord } from '../record.ts'
import type { CheckoutViews } from '../views.ts'
import { orderIdOf } from '../webhook-locator.ts'

/**
 * A verified webhook on an Orders v2 order (see PaypalNotifyAction): the order is fetched by the
 * id the record holds, or, before the record knows it, by the one the event names.
 */
export class NotifyAction extends PaypalNotifyAction<CheckoutRecord, PaypalCheckoutApi, CheckoutViews> {
  protected readonly reversalEvent = 'PAYMENT.CAPTURE.REVERSED'

  protected recordOf (model: unknown): CheckoutRecord | undefined {
    return recordOf(model)
  }

  protected async refresh (record: CheckoutRecord, event: PaypalWebhookEvent): Promise<void> {
    const orderId = typeof record.id === 'string' ? record.id : orderIdOf(event)
    if (orderId !== undefined) this.views.take(record, await this.api.getOrder(orderId), 'webhook')
  }
}
