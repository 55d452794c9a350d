/*
 * Apps, gateways and helpers shared by the GraphQL plugin's tests.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import {
  ArrayObject, BaseGetStatus, CoreGatewayFactory, HttpRedirect, MemoryStorage, errorCodes, Payment, Refund, paywire, providerError,
  type Action, type ActionEntry, type Criteria, type FindByOptions, type PaywirePluginOptions
} from '../../../plugins/core/index.ts'
import { paywireGraphql, type Authorize, type PaywireGraphqlOptions } from '../../../plugins/graphql/index.ts'
import { paywireRedis } from '../../../plugins/redis/index.ts'

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

/** A secret that must never appear in an answer. */
export const SECRET = 'sk_live_S3CR3T'

/** Counts what the GraphQL layer asks of the payment storage. */
export class CountingStorage extends MemoryStorage<Payment> {
  calls = { find: 0, findMany: 0, findBy: 0, update: 0 }

  constructor () {
    super(Payment)
  }

  override async find (id: Parameters<MemoryStorage<Payment>['find']>[0]): Promise<Payment | null> {
    this.calls.find++
    return await super.find(id)
  }

  override async findMany (ids: readonly string[]): Promise<Array<Payment | null>> {
    this.calls.findMany++
    return await super.findMany(ids)
  }

  override async findBy (criteria: Criteria, options?: FindByOptions): Promise<Payment[]> {
    this.calls.findBy++
    return await super.findBy(criteria, options)
  }

  override async update (payment: Payment): Promise<void> {
    this.calls.update++
    await super.update(payment)
  }

  reset (): void {
    this.calls = { find: 0, findMany: 0, findBy: 0, update: 0 }
  }
}

/** What the "provider" test gateway does on refund and cancel. */
export interface ProviderScript {
  refund?: 'decline' | 'crash' | 'redirect' | 'refuse'
  /** Holds refunds until released, to test concurrency. */
  gate?: Promise<void>
  refunds: number
}

class ProviderStatusAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && request.model instanceof ArrayObject
  }

  execute (request: BaseGetStatus<unknown>): void {
    const details = request.model as ArrayObject
    if (details.get('state') === 'crash') throw new Error(`status exploded with ${SECRET}`)
    if (details.get('state') === 'COMPLETED') request.markCaptured()
    else if (details.get('state') === 'REFUNDED') request.markRefunded()
    else request.markNew()
  }
}

/** A gateway like a provider's: captured payments carry provider state; refunds may fail like PayPal's. */
export class ProviderGatewayFactory extends CoreGatewayFactory {
  readonly script: ProviderScript

  constructor (script: ProviderScript) {
    super()
    this.script = script
  }

  override getActions (): ActionEntry[] {
    const script = this.script
    class RefundAction implements Action {
      supports (request: unknown): boolean {
        return request instanceof Refund && request.model instanceof ArrayObject
      }

      async execute (request: Refund): Promise<void> {
        script.refunds++
        if (script.gate !== undefined) await script.gate
        if (script.refund === 'decline') {
          throw providerError({
            provider: 'PayPal',
            providerCode: 'INSTRUMENT_DECLINED',
            message: `declined; raw body {"access_token":"${SECRET}"}`,
            debugId: 'f00dcafe1234',
            cause: new Error(`HTTP 422 {"client_secret":"${SECRET}"}`)
          })
        }
        if (script.refund === 'crash') throw new Error(`connect ECONNREFUSED with key ${SECRET}`)
        if (script.refund === 'redirect') throw new HttpRedirect('https://provider.example/approve')
        if (script.refund === 'refuse') throw new errorCodes.PAYWIRE_ERR_OPERATION_NOT_ALLOWED('Refund', 'disputed')
        const details = request.model as ArrayObject
        details.set('state', 'REFUNDED')
      }
    }
    return [...super.getActions(), RefundAction, ProviderStatusAction]
  }
}

/** A gateway that can only read statuses: nothing to capture, refund or cancel from the server. */
export class StatusOnlyGatewayFactory extends CoreGatewayFactory {
  override getActions (): ActionEntry[] {
    return [...super.getActions(), ProviderStatusAction]
  }
}

export interface GraphqlTestOptions {
  graphql?: PaywireGraphqlOptions
  /** Collects the app's error log lines (JSON). */
  logs?: string[]
  /** The level logs are collected from (default error). */
  logLevel?: string
  /** Tokens, payments and idempotency records in Redis under this key prefix (payments are not counted then). */
  redisKeyPrefix?: string
  paywire?: PaywirePluginOptions
  provider?: ProviderScript
}

export interface GraphqlTestApp {
  app: FastifyInstance
  storage: CountingStorage
  provider: ProviderScript
}

/** Back-office callers send this header in the tests; the authorize option checks it. */
export const ADMIN = { 'x-admin': 'yes' }

export const allowAdmins: Authorize = (context) => context.reply?.request.headers['x-admin'] === 'yes'

/**
 * The core plugin (gateways "cash": offline, "provider": provider-like, "statusonly"),
 * and the GraphQL plugin registering mercurius, back office allowed for ADMIN.
 */
export async function buildGraphqlApp (options: GraphqlTestOptions = {}): Promise<GraphqlTestApp> {
  const storage = new CountingStorage()
  const provider = options.provider ?? { refunds: 0 }
  const logs = options.logs
  const app = Fastify({ logger: logs === undefined ? false : { level: options.logLevel ?? 'error', stream: { write: (line: string) => logs.push(line) } } })
  if (options.redisKeyPrefix !== undefined) await app.register(paywireRedis, { url: REDIS_URL, keyPrefix: options.redisKeyPrefix })
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    ...(options.redisKeyPrefix === undefined ? { storages: [[Payment, storage]] } : { backend: app.paywireRedis }),
    ...options.paywire,
    gateways: {
      cash: { factory: 'offline' },
      provider: { factory: 'provider', client_secret: SECRET },
      statusonly: { factory: 'statusonly' },
      ...options.paywire?.gateways
    },
    configure: async (builder, instance) => {
      builder.addGatewayFactory('provider', new ProviderGatewayFactory(provider))
      builder.addGatewayFactory('statusonly', new StatusOnlyGatewayFactory())
      await options.paywire?.configure?.(builder, instance)
    }
  })
  await app.register(offlineGateway)
  await app.register(paywireGraphql, { mercurius: true, authorize: allowAdmins, ...options.graphql })
  await app.ready()
  return { app, storage, provider }
}

export interface GraphqlAnswer {
  statusCode: number
  data: any
  errors: any[] | undefined
  body: string
}

/** POSTs a GraphQL operation through app.inject. */
export async function gql (app: FastifyInstance, query: string, variables: Record<string, unknown> = {},
  headers: OutgoingHttpHeaders = {}): Promise<GraphqlAnswer> {
  const response = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers } as Record<string, string>,
    payload: JSON.stringify({ query, variables })
  })
  const json = response.json()
  return { statusCode: response.statusCode, data: json.data, errors: json.errors, body: response.body }
}

export const CREATE = `mutation Create($input: CreatePaymentInput!) {
  createPayment(input: $input) {
    __typename
    ... on PaymentCreated { captureUrl replayed payment { id number status totalAmount totalAmountDecimal currencyCode gatewayName localDetails } }
    ... on PaywireError { code message }
    ... on UnknownGateway { gateway }
    ... on InvalidAmount { field }
    ... on InvalidCurrency { currencyCode }
    ... on InvalidAfterUrl { reason }
    ... on InvalidInput { field }
  }
}`

export const REFUND = `mutation Refund($id: ID!, $amount: MinorUnits) {
  refundPayment(id: $id, amount: $amount) {
    __typename
    ... on PaymentRefunded { status replayed payment { id status details } }
    ... on PaywireError { code message }
    ... on NotAuthorized { operation }
    ... on InvalidInput { field }
    ... on InvalidAmount { field }
    ... on UnknownGateway { gateway }
    ... on OperationNotAllowed { operation status }
    ... on OperationNotSupported { operation gateway }
    ... on RefundAmountExceeded { requestedAmount }
    ... on ProviderError { provider providerCode debugId }
  }
}`

export const CANCEL = `mutation Cancel($id: ID!) {
  cancelPayment(id: $id) {
    __typename
    ... on PaymentCanceled { status replayed payment { id status } }
    ... on PaywireError { code message }
    ... on NotAuthorized { operation }
    ... on OperationNotAllowed { operation status }
    ... on OperationNotSupported { operation gateway }
  }
}`

/** Creates a payment through GraphQL and answers its id and capture URL. */
export async function createPayment (app: FastifyInstance, input: Record<string, unknown> = {},
  headers: OutgoingHttpHeaders = {}): Promise<{ id: string, captureUrl: string }> {
  const answer = await gql(app, CREATE, { input: { gateway: 'cash', totalAmount: 1999, currencyCode: 'EUR', ...input } }, headers)
  const created = answer.data?.createPayment
  if (created?.__typename !== 'PaymentCreated') throw new Error(`createPayment failed: ${answer.body}`)
  return { id: created.payment.id, captureUrl: created.captureUrl }
}

/** The path (and query) of a token URL, as the buyer's browser requests it. */
export function pathOf (url: string | string[] | undefined): string {
  const parsed = new URL(String(url))
  return parsed.pathname + parsed.search
}

/** Creates a payment and runs its capture (the buyer following captureUrl). */
export async function capturedPayment (app: FastifyInstance, input: Record<string, unknown> = {}): Promise<string> {
  const { id, captureUrl } = await createPayment(app, input)
  const capture = await app.inject({ url: pathOf(captureUrl) })
  if (capture.statusCode !== 302) throw new Error(`capture failed: ${capture.body}`)
  return id
}

/** Stores a payment directly (as another part of the shop would), with the given gateway details. */
export async function storedPayment (app: FastifyInstance, fields: Partial<Payment>): Promise<Payment> {
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR', gatewayName: 'cash' }, fields)
  await storage.update(payment)
  return payment
}
