/* PAYWIRE_ERR_CIRCULAR_DEPENDENCY: a definition that builds, with the container, what needs it. */
import { HttpClient, factory, serviceId, type ContainerConfiguration } from 'paywire/engine'
import { AcmeApi, AcmeGatewayFactory, CaptureAction } from '../v2/index.ts'

// #region broken
export class EagerAcmeGatewayFactory extends AcmeGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      // Builds the capture action eagerly to "warm it up": but that action needs this API.
      [serviceId(AcmeApi)]: factory((container) => {
        container.get(CaptureAction)
        return new AcmeApi(container.get('acme.client_id'), container.get('acme.client_secret'),
          container.get('acme.sandbox'), container.get(HttpClient), container.get('paywire.gateway_name'))
      })
    }
  }
}
// #endregion broken
