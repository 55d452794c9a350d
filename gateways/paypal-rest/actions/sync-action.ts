import { PaypalSyncAction, type PaypalResource } from '../../paypal-shared/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, relatedResources, type PaypalRecord } from '../details.ts'
import type { PaypalViews } from '../views.ts'

/** Refreshes a Payments v1 payment (see PaypalSyncAction): GET the payment, and the disputes on its sales. */
export class SyncAction extends PaypalSyncAction<PaypalRecord, PaypalRestApi, PaypalViews> {
  protected recordOf (model: unknown): PaypalRecord | undefined {
    return recordOf(model)
  }

  protected async lookUp (id: string): Promise<PaypalResource> {
    return await this.api.getPayment(id)
  }

  protected disputableIds (record: PaypalRecord): string[] {
    return relatedResources(record).map((resource) => resource.sale?.id).filter((id): id is string => typeof id === 'string')
  }
}
