import {
  GatewayFactory, type HttpClient, type LegacyConfig, type LegacyMessageFactory
} from 'paywire/engine'
import { ConvertPaymentAction } from '../shared/convert-payment-action.ts'
import { StatusAction } from '../shared/status-action.ts'
import { AcmeApi } from './acme-api.ts'
import { CaptureAction, RefundAction } from './actions.ts'

/** The Acme gateway factory written in the 1.x style: it still works, and warns. */
// #region class
export class AcmeGatewayFactory extends GatewayFactory {
// #endregion class
  // #region populate-config
  protected override populateConfig (config: LegacyConfig): void {
    // #region action-keys
    config.defaults({
      'paywire.factory_name': 'acme',
      'paywire.factory_title': 'Acme',
      'paywire.action.capture': new CaptureAction(),
      'paywire.action.refund': new RefundAction(),
      'paywire.action.status': new StatusAction(),
      'paywire.action.convert_payment': new ConvertPaymentAction()
    })
    // #endregion action-keys

    // #region api-closure
    if (!config.has('paywire.api')) {
      config.set('paywire.default_options', { client_id: '', client_secret: '', sandbox: true })
      config.defaults(config.get('paywire.default_options'))
      config.set('paywire.required_options', ['client_id', 'client_secret'])

      config.set('paywire.api', (config: LegacyConfig) => {
        config.validateNotEmpty(config.get('paywire.required_options'))
        return new AcmeApi(
          { client_id: config.get('client_id'), client_secret: config.get('client_secret'), sandbox: config.get('sandbox') },
          config.get<HttpClient>('httplug.client'),
          config.get<LegacyMessageFactory>('httplug.message_factory')
        )
      })
    }
    // #endregion api-closure
  }
  // #endregion populate-config
}
