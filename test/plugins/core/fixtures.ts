/*
 * Test gateways and app builders shared by the core plugin's tests.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import {
  ArrayObject, Authorize, BaseGetStatus, Cancel, Capture, Checkpoint, CoreGatewayFactory, Convert, GetHttpRequest, GatewayAwareAction,
  LocateNotification, Notify, Payment, Refund, Sync, paywire, type ActionEntry, type ContainerConfiguration, type HttpRequestData,
  type PaywirePluginOptions, type Reply, type Token
} from '../../../plugins/core/index.ts'
import { offlineGateway } from '../../../gateways/offline/index.ts'

/** What the scripted gateway's actions do; tests change it between requests. */
export interface Script {
  /** Thrown by the next capture/authorize/notify/sync, then cleared. */
  reply?: Reply
  /** Seen HTTP requests, in order. */
  seen: HttpRequestData[]
  /** How many times each request kind reached the gateway. */
  calls: Record<string, number>
  /** Holds the capture action until released, to test concurrency. */
  gate?: Promise<void>
  /** After the gate, records a request id and takes a checkpoint, as a gateway does before a provider call. */
  checkpoint?: boolean
  /** Thrown by the next request after it touched the model, then cleared. */
  error?: Error
}

export function newScript (): Script {
  return { seen: [], calls: {} }
}

class ScriptedAction extends GatewayAwareAction {
  readonly script: Script
  readonly kinds: Array<[string, abstract new (...args: any[]) => unknown]> = [
    ['capture', Capture], ['authorize', Authorize], ['refund', Refund], ['cancel', Cancel], ['sync', Sync], ['notify', Notify],
    // The gateway-wide notify route's request: verified here (a scripted reply refuses it), about no payment.
    ['notify', LocateNotification]
  ]

  constructor (script: Script) {
    super()
    this.script = script
  }

  supports (request: unknown): boolean {
    return this.kinds.some(([, Kind]) => request instanceof Kind) &&
      ((request as { model: unknown }).model instanceof ArrayObject || request instanceof LocateNotification)
  }

  async execute (request: Capture): Promise<void> {
    const kind = (this.kinds.find(([, Kind]) => request instanceof Kind) as [string, unknown])[0]
    this.script.calls[kind] = (this.script.calls[kind] ?? 0) + 1
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    this.script.seen.push({ ...http })
    if (this.script.gate !== undefined) await this.script.gate
    if (this.script.checkpoint === true && request.model instanceof ArrayObject) {
      request.model.set('requestId', `${kind}-1`)
      await this.gateway.execute(new Checkpoint())
    }
    const error = this.script.error
    if (error !== undefined) {
      this.script.error = undefined
      if (request.model instanceof ArrayObject) request.model.set('failed', true)
      throw error
    }
    const reply = this.script.reply
    if (reply !== undefined) {
      this.script.reply = undefined
      throw reply
    }
    if (request.model instanceof ArrayObject) request.model.set('status', kind)
  }
}

class ScriptedStatusAction {
  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && request.model instanceof ArrayObject
  }

  execute (request: BaseGetStatus<unknown>): void {
    const details = request.model as ArrayObject
    if (details.get('status') === 'capture') request.markCaptured()
    else if (details.has('status')) request.markPending()
    else request.markNew()
  }
}

class ScriptedConvertAction {
  supports (request: unknown): boolean {
    return request instanceof Convert && request.source instanceof Payment
  }

  execute (request: Convert): void {
    const payment = request.source as Payment
    request.result = { amount: payment.totalAmount, currency: payment.currencyCode, ...payment.details }
  }
}

/** A gateway whose behaviour tests script: replies, counting, holding requests. */
export class ScriptedGatewayFactory extends CoreGatewayFactory {
  readonly script: Script

  constructor (script: Script) {
    super()
    this.script = script
  }

  override configureContainer (): ContainerConfiguration {
    return { ...super.configureContainer(), 'scripted.script': this.script }
  }

  override getActions (): ActionEntry[] {
    const script = this.script
    return [
      ...super.getActions(),
      class extends ScriptedAction { constructor () { super(script) } },
      ScriptedStatusAction,
      ScriptedConvertAction
    ]
  }
}

export interface TestApp {
  app: FastifyInstance
  script: Script
}

/** An app with the core plugin, the offline gateway as "cash" and a scripted gateway as "scripted". */
export async function buildTestApp (options: PaywirePluginOptions = {}): Promise<TestApp> {
  const script = newScript()
  const app = Fastify()
  await app.register(paywire, {
    baseUrl: 'https://shop.example',
    ...options,
    gateways: { cash: { factory: 'offline' }, scripted: { factory: 'scripted' }, ...options.gateways },
    configure: async (builder, instance) => {
      builder.addGatewayFactory('scripted', new ScriptedGatewayFactory(script))
      await options.configure?.(builder, instance)
    }
  })
  await app.register(offlineGateway)
  await app.ready()
  return { app, script }
}

export async function storedPayment (app: FastifyInstance, fields: Partial<Payment> = {}): Promise<Payment> {
  const storage = app.paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' }, fields)
  await storage.update(payment)
  return payment
}

/** The path (and query) of a token URL, as the buyer's browser requests it. */
export function pathOf (url: string | null | undefined): string {
  const parsed = new URL(url as string)
  return parsed.pathname + parsed.search
}

export type { Token }
