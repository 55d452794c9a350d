/*
 * Writing a gateway (docs/writing-a-gateway.md): a factory extending CoreGatewayFactory,
 * options as container values, an API class given the HttpClient and the Logger, actions
 * getting it by constructor injection, a status action, and observed provider calls.
 * Run: npx tsx --conditions=paywire-source examples/guides/writing-a-gateway.ts
 */
import {
  ArrayObject, Capture, Convert, CoreGatewayFactory, GetHumanStatus, HttpClient, Logger, Payment, PaywireBuilder, autowire, get,
  observeProviderCall, serviceId, type Action, type ActionEntry, type ContainerConfiguration, type HttpClientResponse, type HttpRequest
} from 'paywire/engine'

/** The provider's API: one call, observed (span + debug line through Paywire's redacting logger). */
export class AcmeApi {
  readonly apiKey: string
  readonly endpoint: string
  readonly http: HttpClient
  readonly logger: Logger
  constructor (apiKey: string, endpoint: string, http: HttpClient, logger: Logger) {
    this.apiKey = apiKey
    this.endpoint = endpoint
    this.http = http
    this.logger = logger
  }

  async charge (amount: number, idempotencyKey: string): Promise<{ id: string, state: string }> {
    const url = `${this.endpoint}/v1/charges`
    const request = { method: 'POST', url, headers: { authorization: `Bearer ${this.apiKey}`, 'idempotency-key': idempotencyKey }, body: JSON.stringify({ amount }) }
    const response = await observeProviderCall(this.logger, { provider: 'Acme', method: 'POST', url, path: '/v1/charges', attempt: 1, debugIdHeader: 'acme-debug-id' },
      () => this.http.send(request))
    return JSON.parse(response.body)
  }
}

/** Actions list their constructor parameters by name for injection. */
class AcmeCaptureAction implements Action {
  static readonly inject = ['api']
  readonly api: AcmeApi
  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Capture && request.model instanceof ArrayObject
  }

  async execute (request: Capture): Promise<void> {
    const details = request.model as ArrayObject
    if (details.get('charge_id') !== undefined) return // captured already: a capture may run again
    const charge = await this.api.charge(details.get<number>('amount'), details.get<string>('order'))
    details.replace({ charge_id: charge.id, state: charge.state })
  }
}

class AcmeStatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof GetHumanStatus && request.model instanceof ArrayObject
  }

  execute (request: GetHumanStatus): void {
    const state = (request.model as ArrayObject).get('state')
    if (state === 'succeeded') request.markCaptured()
    else if (state === 'failed') request.markFailed()
    else request.markNew()
  }
}

/** A Payment becomes the provider's details (the request's model from then on). */
class AcmeConvertPaymentAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.to === 'array' && request.source instanceof Payment
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    request.result = { amount: payment.totalAmount, currency: payment.currencyCode, order: payment.number }
  }
}

export class AcmeGatewayFactory extends CoreGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    return {
      ...super.configureContainer(),
      // Defaults of the options a gateway gives: addGateway('acme', { factory: 'acme', api_key: '...' }).
      'acme.api_key': '',
      'acme.endpoint': 'https://api.acme.example',
      [serviceId(AcmeApi)]: autowire(AcmeApi).constructor(get('acme.api_key'), get('acme.endpoint'), get(HttpClient), get(Logger)),
      [serviceId(AcmeCaptureAction)]: autowire(AcmeCaptureAction).constructorParameter('api', get(AcmeApi))
    }
  }

  override getActions (): ActionEntry[] {
    return [...super.getActions(), AcmeConvertPaymentAction, AcmeCaptureAction, AcmeStatusAction]
  }
}

/** The provider, for the example: answers every charge. */
class FakeAcme extends HttpClient {
  readonly requests: HttpRequest[] = []
  async send (request: HttpRequest): Promise<HttpClientResponse> {
    this.requests.push(request)
    return { statusCode: 201, headers: { 'acme-debug-id': 'dbg-42' }, body: JSON.stringify({ id: 'ch_1', state: 'succeeded' }) }
  }
}

export async function main (): Promise<{ status: string, details: unknown, calls: number, logged: unknown[] }> {
  // A custom logger implements debug/info/warn/error (trace optional): see docs/observability.md.
  const logged: unknown[] = []
  const logger = { debug: (fields: unknown, message?: string) => { if (message === 'paywire: Acme call') logged.push(fields) }, info () {}, warn () {}, error () {} }
  const http = new FakeAcme()
  const paywire = new PaywireBuilder()
    .addGlobalService(HttpClient, http)
    .addGlobalService(Logger, logger)
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('shop-acme', { factory: 'acme', api_key: '<ACME_API_KEY>' })
    .getPaywire()
  try {
    const payment = Object.assign(new Payment(), { number: 'ORDER-3', totalAmount: 1500, currencyCode: 'EUR' })
    const gateway = paywire.getGateway('shop-acme')
    await gateway.execute(new Capture(payment))
    await gateway.execute(new Capture(payment)) // again: no second charge
    const status = new GetHumanStatus(payment)
    await gateway.execute(status)
    return { status: status.value, details: payment.details, calls: http.requests.length, logged }
  } finally {
    await paywire.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
