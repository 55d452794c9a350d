import { PaypalNotifyAction } from '../../paypal-shared/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, type PaypalRecord } from '../details.ts'
import type { PaypalViews } from '../views.ts'

/** A verified webhook on a Payments v1 payment (see PaypalNotifyAction): the payment is fetched by its id. */
export class NotifyAction extends PaypalNotifyAction<PaypalRecord, PaypalRestApi, PaypalViews> {
  protected readonly reversalEvent = 'PAYMENT.SALE.REVERSED'

  protected recordOf (model: unknown): PaypalRecord | undefined {
    return recordOf(model)
  }

  protected async refresh (record: PaypalRecord): Promise<void> {
    this.views.take(record, await this.api.getPayment(record.id), 'webhook')
  }
}
