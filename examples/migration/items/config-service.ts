/* PAYWIREDEP011: services read from the mutable config by closures. */
import { createHmac } from 'node:crypto'
import { autowire, get, serviceId, type ContainerConfiguration, type LegacyConfig } from 'paywire/engine'
import { AcmeGatewayFactory as AcmeV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../v2/index.ts'

/** Signs Acme webhooks with the client secret. */
export class WebhookSigner {
  readonly #secret: string

  constructor (secret: string) {
    this.#secret = secret
  }

  sign (payload: string): string {
    return createHmac('sha256', this.#secret).update(payload).digest('hex')
  }
}

// #region before
export class SigningAcmeGatewayFactoryBefore extends AcmeV1 {
  protected override populateConfig (config: LegacyConfig): void {
    super.populateConfig(config)
    config.defaults({
      'acme.webhook_signer': (config: LegacyConfig) => new WebhookSigner(config.get('client_secret'))
    })
  }
}
// #endregion before

// #region after
export class SigningAcmeGatewayFactoryAfter extends AcmeV2 {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      [serviceId(WebhookSigner)]: autowire(WebhookSigner).constructor(get('acme.client_secret'))
    }
  }
}
// #endregion after
