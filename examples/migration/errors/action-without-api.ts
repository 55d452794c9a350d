/* An action that does not receive its API object, in both styles. */
import {
  GatewayFactory, autowire, serviceId, type ContainerConfiguration, type HttpClient, type LegacyConfig, type LegacyMessageFactory
} from 'paywire/engine'
import { ConvertPaymentAction } from '../shared/convert-payment-action.ts'
import { StatusAction } from '../shared/status-action.ts'
import { AcmeApi as AcmeApiV1, CaptureAction as CaptureActionV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2, CaptureAction } from '../v2/index.ts'

// #region broken-2.0
export class ForgetfulAcmeGatewayFactory extends AcmeV2 {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      [serviceId(CaptureAction)]: autowire(CaptureAction)
    }
  }
}
// #endregion broken-2.0

// #region broken-1.x
export class MisspelledAcmeGatewayFactory extends GatewayFactory {
  protected override populateConfig (config: LegacyConfig): void {
    config.defaults({
      'paywire.action.capture': new CaptureActionV1(),
      'paywire.action.status': new StatusAction(),
      'paywire.action.convert_payment': new ConvertPaymentAction(),
      // "paywire.apis" is not a paywire.api.* key: the gateway never gets this API.
      'paywire.apis': (config: LegacyConfig) => new AcmeApiV1(
        { client_id: config.get('client_id'), client_secret: config.get('client_secret'), sandbox: true },
        config.get<HttpClient>('httplug.client'),
        config.get<LegacyMessageFactory>('httplug.message_factory')
      )
    })
  }
}
// #endregion broken-1.x
