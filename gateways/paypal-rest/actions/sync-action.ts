import { Sync, type Action } from '../../../plugins/core/engine/index.ts'
import type { PaypalRestApi } from '../api.ts'
import { recordOf, type PaypalRecord } from '../details.ts'

/** Refreshes the details from PayPal (GET the payment). A payment not created at PayPal yet has nothing to sync. */
export class SyncAction implements Action {
  readonly api: PaypalRestApi

  constructor (api: PaypalRestApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Sync && recordOf(request.model) !== undefined
  }

  async execute (request: Sync): Promise<void> {
    const record = recordOf(request.model) as PaypalRecord
    if (typeof record.id !== 'string') return
    Object.assign(record, await this.api.getPayment(record.id))
  }
}
