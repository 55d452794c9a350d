import { CoreGatewayFactory, PaymentStateReader, factory, serviceId, type ActionEntry, type ContainerConfiguration } from '../../plugins/core/engine/index.ts'
import { ConvertPaymentAction, ConvertPayoutAction } from './actions/convert-actions.ts'
import { AuthorizeAction, CancelAction, CaptureAction, PayoutAction, RefundAction } from './actions/payment-actions.ts'
import { OfflineStateReader } from './state-reader.ts'

export const OFFLINE_FACTORY_NAME = 'offline'

/**
 * Payments that happen outside any provider (cash, cheque, bank transfer), and the
 * gateway for tests and demos: no options, no API, no network.
 */
export class OfflineGatewayFactory extends CoreGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    // Commits read statuses through it to stage payment events.
    return { ...super.configureContainer(), [serviceId(PaymentStateReader)]: factory(() => new OfflineStateReader()) }
  }

  override getActions (): ActionEntry[] {
    return [
      ...super.getActions(),
      CaptureAction,
      AuthorizeAction,
      PayoutAction,
      RefundAction,
      CancelAction,
      ConvertPaymentAction,
      ConvertPayoutAction
    ]
  }
}
