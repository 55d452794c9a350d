/* PAYWIRE_ERR_SERVICE_NOT_FOUND: a service referenced by a string instead of its class. */
import { autowire, get, serviceId, type ContainerConfiguration } from 'paywire/engine'
import { AcmeGatewayFactory, CaptureAction } from '../v2/index.ts'

// #region broken
export class StringIdAcmeGatewayFactory extends AcmeGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructorParameter('api', get('AcmeApi'))
    }
  }
}
// #endregion broken
