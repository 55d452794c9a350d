/*
 * A small 2.0-style gateway factory for registry, builder and Paywire tests: an API object
 * built from the gateway's options, an action that writes what the API was given into the
 * details, a disposer that reports when the gateway's scope is closed.
 */
import {
  ArrayObject, Capture, CoreGatewayFactory, Logger, autowire, get, serviceId, type ActionEntry, type ContainerConfiguration
} from '../../plugins/core/engine/index.ts'

export class AcmeApi {
  readonly apiKey: string
  readonly sandbox: boolean
  readonly endpoint: { url: string, retries: number }
  readonly logger: Logger
  constructor (apiKey: string, sandbox: boolean, endpoint: { url: string, retries: number }, logger: Logger) {
    this.apiKey = apiKey
    this.sandbox = sandbox
    this.endpoint = endpoint
    this.logger = logger
  }
}

export class AcmeCaptureAction {
  static readonly inject = ['api']
  readonly api: AcmeApi
  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Capture && request.model instanceof ArrayObject
  }

  execute (request: Capture): void {
    (request.model as ArrayObject).replace({ api_key: this.api.apiKey, sandbox: this.api.sandbox })
  }
}

export class AcmeGatewayFactory extends CoreGatewayFactory {
  /** Every API object this factory's containers disposed, by api key. */
  readonly disposed: string[] = []
  configureContainerCalls = 0

  override configureContainer (): ContainerConfiguration {
    this.configureContainerCalls++
    return {
      ...super.configureContainer(),
      'acme.api_key': '',
      'acme.sandbox': true,
      'acme.endpoint': { url: 'https://api.acme.example', retries: 1 },
      [serviceId(AcmeApi)]: autowire(AcmeApi)
        .constructor(get('acme.api_key'), get('acme.sandbox'), get('acme.endpoint'), get(Logger))
        .disposer((api) => { this.disposed.push(api.apiKey) }),
      [serviceId(AcmeCaptureAction)]: autowire(AcmeCaptureAction).constructorParameter('api', get(AcmeApi))
    }
  }

  override getActions (): ActionEntry[] {
    return [...super.getActions(), AcmeCaptureAction]
  }
}
