/*
 * Writing a gateway (docs/writing-a-gateway.md): a factory extending CoreGatewayFactory,
 * options as container values, an API class given the HttpClient and the Logger, actions
 * getting it by constructor injection, the gateway's state reader (its one statement of its
 * statuses), webhooks it verifies and locates, and observed provider calls.
 * Run: npx tsx --conditions=paywire-source examples/guides/writing-a-gateway.ts
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import {
  ArrayObject, Capture, Convert, CoreGatewayFactory, GatewayAwareAction, GetHttpRequest, GetHumanStatus, HttpClient, HttpResponse,
  LocateNotification, Logger, Notify, Payment, PaymentStateReader, PaywireBuilder, autowire, factory, get, observeProviderCall,
  runWithHttpRequest, serviceId, type Action, type ActionEntry, type ContainerConfiguration, type HttpClientResponse, type HttpRequest,
  type PaymentState
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

  async getCharge (id: string): Promise<{ id: string, state: string }> {
    const url = `${this.endpoint}/v1/charges/${id}`
    const response = await observeProviderCall(this.logger, { provider: 'Acme', method: 'GET', url, path: '/v1/charges/:id', attempt: 1, debugIdHeader: 'acme-debug-id' },
      () => this.http.send({ method: 'GET', url, headers: { authorization: `Bearer ${this.apiKey}` } }))
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

/**
 * The gateway's statuses and amounts, read from a record as stored (a Payment with its
 * `details`): GetHumanStatus is answered from it, and commits compare its readings before and
 * after a write to stage payment events. The one place the gateway states its statuses.
 */
class AcmeStateReader extends PaymentStateReader {
  read (record: Record<string, unknown>): PaymentState | undefined {
    const details = record.details as Record<string, unknown> | undefined
    if (typeof details !== 'object' || details === null) return undefined
    const captured = details.state === 'succeeded' && typeof details.amount === 'number' ? details.amount : 0
    const status = details.state === 'succeeded' ? 'captured' : details.state === 'pending' ? 'pending' : details.state === 'failed' ? 'failed' : 'new'
    return { status, amounts: { captured, refunded: 0, reversed: 0 }, providerIds: typeof details.charge_id === 'string' ? { charge: details.charge_id } : {} }
  }
}

/**
 * Webhooks (one URL per gateway: /payment/notify/unsafe/<gateway>): verified here, refused with
 * a 400 when they are not genuine, then described for the notify route, which finds the payment
 * and runs its Notify as the payment's only writer.
 */
class AcmeLocateWebhookAction extends GatewayAwareAction {
  static readonly inject = ['secret']
  readonly secret: string
  constructor (secret: string) {
    super()
    this.secret = secret
  }

  supports (request: unknown): boolean {
    return request instanceof LocateNotification
  }

  async execute (request: LocateNotification): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const expected = createHmac('sha256', this.secret).update(http.content).digest()
    const given = Buffer.from(String(http.headers['acme-signature'] ?? ''), 'hex')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new HttpResponse('Bad signature', 400)
    const event = JSON.parse(http.content) as { id: string, type: string, charge: string, order: string }
    request.notification = { provider: 'Acme', eventId: event.id, eventType: event.type, resourceIds: { charge: event.charge }, event }
    request.lookups = [{ model: Payment, criteria: { 'details.charge_id': event.charge } }]
  }
}

/**
 * Runs under the payment's claim. Events come late, twice and out of order: the provider's
 * current state is read, never the event's word, and taken only forward (a real gateway decides
 * through the StatusTransitions service).
 */
class AcmeNotifyAction implements Action {
  static readonly inject = ['api']
  readonly api: AcmeApi
  constructor (api: AcmeApi) {
    this.api = api
  }

  supports (request: unknown): boolean {
    return request instanceof Notify && request.notification?.provider === 'Acme' && request.model instanceof ArrayObject
  }

  async execute (request: Notify): Promise<void> {
    const details = request.model as ArrayObject
    const charge = await this.api.getCharge(details.get<string>('charge_id'))
    if (details.get('state') === 'pending') details.set('state', charge.state)
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
      'acme.webhook_secret': '',
      'acme.endpoint': 'https://api.acme.example',
      [serviceId(AcmeApi)]: autowire(AcmeApi).constructor(get('acme.api_key'), get('acme.endpoint'), get(HttpClient), get(Logger)),
      [serviceId(AcmeCaptureAction)]: autowire(AcmeCaptureAction).constructorParameter('api', get(AcmeApi)),
      [serviceId(AcmeLocateWebhookAction)]: autowire(AcmeLocateWebhookAction).constructor(get('acme.webhook_secret')),
      [serviceId(AcmeNotifyAction)]: autowire(AcmeNotifyAction).constructorParameter('api', get(AcmeApi)),
      // Statuses: the core factory answers GetHumanStatus from the registered reader.
      [serviceId(PaymentStateReader)]: factory(() => new AcmeStateReader())
    }
  }

  override getActions (): ActionEntry[] {
    return [...super.getActions(), AcmeConvertPaymentAction, AcmeCaptureAction, AcmeLocateWebhookAction, AcmeNotifyAction]
  }
}

/** The provider, for the example: takes every charge as pending, and has settled it when asked again. */
class FakeAcme extends HttpClient {
  readonly requests: HttpRequest[] = []
  async send (request: HttpRequest): Promise<HttpClientResponse> {
    this.requests.push(request)
    const state = request.method === 'POST' ? 'pending' : 'succeeded'
    return { statusCode: request.method === 'POST' ? 201 : 200, headers: { 'acme-debug-id': 'dbg-42' }, body: JSON.stringify({ id: 'ch_1', state }) }
  }
}

export async function main (): Promise<{ status: string, details: unknown, calls: number, logged: unknown[], forged: unknown, afterWebhook: string }> {
  // A custom logger implements debug/info/warn/error (trace optional): see docs/observability.md.
  const logged: unknown[] = []
  const logger = { debug: (fields: unknown, message?: string) => { if (message === 'paywire: Acme call') logged.push(fields) }, info () {}, warn () {}, error () {} }
  const http = new FakeAcme()
  const paywire = new PaywireBuilder()
    .addGlobalService(HttpClient, http)
    .addGlobalService(Logger, logger)
    .addGatewayFactory('acme', new AcmeGatewayFactory())
    .addGateway('shop-acme', { factory: 'acme', api_key: '<ACME_API_KEY>', webhook_secret: '<ACME_WEBHOOK_SECRET>' })
    .getPaywire()
  try {
    const payment = Object.assign(new Payment(), { number: 'ORDER-3', totalAmount: 1500, currencyCode: 'EUR' })
    const gateway = paywire.getGateway('shop-acme')
    await gateway.execute(new Capture(payment))
    await gateway.execute(new Capture(payment)) // again: no second charge
    const status = new GetHumanStatus(payment)
    await gateway.execute(status)
    const charged = http.requests.length
    await paywire.getStorage(Payment).update(payment)

    // A webhook, as the notify route receives it (any web framework: runWithHttpRequest).
    const webhook = (body: string, signature: string) => runWithHttpRequest({
      method: 'POST', uri: '/payment/notify/unsafe/shop-acme', query: {}, request: {}, content: body, headers: { 'acme-signature': signature }, clientIp: '', userAgent: 'Acme'
    }, () => paywire.receiveNotification('shop-acme'))
    const body = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded', charge: 'ch_1', order: 'ORDER-3' })
    const forged = await webhook(body, 'ab'.repeat(32))
    await webhook(body, createHmac('sha256', '<ACME_WEBHOOK_SECRET>').update(body).digest('hex'))
    const after = new GetHumanStatus(await paywire.getStorage(Payment).find(payment.id as string))
    await gateway.execute(after)
    return { status: status.value, details: { ...payment.details }, calls: charged, logged, forged, afterWebhook: after.value }
  } finally {
    await paywire.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await main())
