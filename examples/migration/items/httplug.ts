/* PAYWIREDEP008, PAYWIREDEP009, PAYWIREDEP010: the httplug.* keys. */
import {
  HttpClient, autowire, get, serviceId,
  type ContainerConfiguration, type LegacyConfig, type LegacyMessageFactory, type LegacyStreamFactory
} from 'paywire/engine'
import { AcmeGatewayFactory as AcmeV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../v2/index.ts'

// #region before
/** Tells the shop's back office about payments; built by the 1.x config. */
export class BackOfficeNotifierBefore {
  readonly #client: HttpClient
  readonly #messageFactory: LegacyMessageFactory
  readonly #streamFactory: LegacyStreamFactory

  constructor (client: HttpClient, messageFactory: LegacyMessageFactory, streamFactory: LegacyStreamFactory) {
    this.#client = client
    this.#messageFactory = messageFactory
    this.#streamFactory = streamFactory
  }

  async notify (event: Record<string, unknown>): Promise<number> {
    const body = this.#streamFactory.createStream(JSON.stringify(event))
    const request = this.#messageFactory.createRequest('POST', 'https://back-office.shop.example/events', { 'content-type': 'application/json' }, body)
    const response = await this.#client.send(request)
    return response.statusCode
  }
}

export class NotifyingAcmeGatewayFactoryBefore extends AcmeV1 {
  protected override populateConfig (config: LegacyConfig): void {
    super.populateConfig(config)
    config.defaults({
      'acme.back_office': (config: LegacyConfig) => new BackOfficeNotifierBefore(
        config.get('httplug.client'), config.get('httplug.message_factory'), config.get('httplug.stream_factory'))
    })
  }
}
// #endregion before

// #region after
export class BackOfficeNotifierAfter {
  readonly #httpClient: HttpClient

  constructor (httpClient: HttpClient) {
    this.#httpClient = httpClient
  }

  async notify (event: Record<string, unknown>): Promise<number> {
    const response = await this.#httpClient.send({
      method: 'POST',
      url: 'https://back-office.shop.example/events',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event)
    })
    return response.statusCode
  }
}

export class NotifyingAcmeGatewayFactoryAfter extends AcmeV2 {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      [serviceId(BackOfficeNotifierAfter)]: autowire(BackOfficeNotifierAfter).constructor(get(HttpClient))
    }
  }
}
// #endregion after
