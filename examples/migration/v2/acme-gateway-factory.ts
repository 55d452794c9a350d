import {
  CoreGatewayFactory, HttpClient, autowire, get, serviceId,
  type ActionEntry, type ContainerConfiguration
} from 'paywire/engine'
import { ConvertPaymentAction } from '../shared/convert-payment-action.ts'
import { StatusAction } from '../shared/status-action.ts'
import { AcmeApi } from './acme-api.ts'
import { CaptureAction, RefundAction } from './actions.ts'

/** The Acme gateway factory migrated to 2.0 by the six rules of MIGRATION.md. */
// #region class
export class AcmeGatewayFactory extends CoreGatewayFactory {
// #endregion class
  /** Options keep their "acme." keys when the factory is registered under another name. */
  readonly optionsPrefix = 'acme'

  // #region configure-container
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      'acme.client_id': '',
      'acme.client_secret': '',
      'acme.sandbox': true,
      // #region api-definition
      [serviceId(AcmeApi)]: autowire(AcmeApi).constructor(
        get('acme.client_id'), get('acme.client_secret'), get('acme.sandbox'), get(HttpClient), get('paywire.gateway_name')
      ),
      // #endregion api-definition
      // #region action-definitions
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructorParameter('api', get(AcmeApi)),
      [serviceId(RefundAction)]: autowire(RefundAction).constructorParameter('api', get(AcmeApi))
      // #endregion action-definitions
    }
  }
  // #endregion configure-container

  // #region get-actions
  override getActions (): ActionEntry[] {
    return [...super.getActions(), CaptureAction, RefundAction, StatusAction, ConvertPaymentAction]
  }
  // #endregion get-actions
}
