/*
 * An application with the operator console, the offline gateway on memory storage, and
 * helpers to make payments and to post the console's forms as a browser does.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { OfflineGatewayFactory, offlineGateway } from '../../../gateways/offline/index.ts'
import { OfflineStateReader } from '../../../gateways/offline/state-reader.ts'
import {
  ArrayObject, Payment, PaymentStateReader, Refund, Sync, factory, paywire, providerError, serviceId,
  type Action, type ActionEntry, type ContainerConfiguration, type PaymentState, type PaywirePluginOptions
} from '../../../plugins/core/index.ts'
import { paywireConsole, type ConsoleOperation, type PaywireConsoleOptions } from '../../../plugins/console/index.ts'

export const PREFIX = '/paywire/console'

/** Who may do what: the x-operator header names a role; "admin" may do everything, "viewer" only look. */
export function roleAuthorize (request: { headers: Record<string, unknown> }, operation: ConsoleOperation): boolean {
  const role = request.headers['x-operator']
  return role === 'admin' || (role === 'viewer' && operation === 'view')
}

export async function buildConsoleApp (options: Partial<PaywireConsoleOptions> = {}, core: PaywirePluginOptions = {}): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(paywire, {
    baseUrl: 'http://shop.test',
    gateways: { cash: { factory: 'offline' }, till: { factory: 'offline' }, scripted: { factory: 'scripted' } },
    configure: (builder) => { builder.addGatewayFactory('scripted', new ScriptedGatewayFactory()) },
    ...core
  })
  await app.register(offlineGateway)
  await app.register(paywireConsole, { authorize: roleAuthorize, ...options })
  await app.ready()
  return app
}

/** A stored payment run through the capture route: captured unless `paid` is false (then pending). */
export async function payment (app: FastifyInstance, fields: {
  gateway?: string, amount: number, currency?: string, number?: string, paid?: boolean, details?: Record<string, unknown>, authorize?: boolean
}): Promise<Payment> {
  const storage = app.paywire.getStorage(Payment)
  const created = storage.create()
  created.gatewayName = fields.gateway ?? 'cash'
  created.number = fields.number ?? `ORDER-${fields.amount}`
  created.totalAmount = fields.amount
  created.currencyCode = fields.currency ?? 'EUR'
  created.details = { ...(fields.paid === false ? { paid: false } : {}), ...fields.details }
  const token = fields.authorize === true
    ? await (async () => {
      await storage.update(created)
      return await app.paywire.getTokenFactory().createAuthorizeToken(created.gatewayName, created, 'done')
    })()
    : await app.paywire.prepareCapture(created.gatewayName, created, 'done')
  const answer = await app.inject({ method: 'GET', url: new URL(token.targetUrl).pathname })
  if (answer.statusCode >= 400) throw new Error(`capture failed: ${answer.statusCode} ${answer.body}`)
  return await storage.find(created.id as string) as Payment
}

export const ADMIN = { 'x-operator': 'admin' }

/** The value of a hidden field in a page. */
export function field (html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)
  if (match === null) throw new Error(`no field ${name}`)
  return match[1] as string
}

/** The console's cookie from an answer, as a Cookie header. */
export function cookieFrom (answer: LightMyRequestResponse): string {
  const header = answer.headers['set-cookie']
  const value = (Array.isArray(header) ? header[0] : header) ?? ''
  return value.split(';')[0] as string
}

/** Opens a confirmation page and posts its form, as a browser would; `change` alters the posted fields. */
export async function confirmAndPost (app: FastifyInstance, path: string, change: (fields: URLSearchParams) => void = () => {},
  headers: Record<string, string> = {}): Promise<{ confirm: LightMyRequestResponse, answer: LightMyRequestResponse, fields: URLSearchParams, cookie: string }> {
  const confirm = await app.inject({ method: 'GET', url: path, headers: ADMIN })
  const cookie = cookieFrom(confirm)
  const fields = new URLSearchParams({ csrf: field(confirm.body, 'csrf'), key: field(confirm.body, 'key') })
  if (confirm.body.includes('name="amount"')) fields.set('amount', field(confirm.body, 'amount'))
  change(fields)
  const answer = await app.inject({
    method: 'POST',
    url: path.replace(/\?.*$/, ''),
    headers: { ...ADMIN, cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: fields.toString()
  })
  return { confirm, answer, fields, cookie }
}

/** A page's text without tags, spaces collapsed: what a reader sees. */
export function text (html: string): string {
  return html.replace(/<style>[\s\S]*?<\/style>/, '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim()
}

/**
 * The offline gateway with what a provider's adds, scripted by the payment's details:
 * `reading` joins the provider's ids, disputes, a failed call's time, an authorization's
 * expiry and unsettled refunds to the offline reading; `syncTo` is the status a Sync finds
 * (none: Sync finds nothing new); `decline` makes refunds fail as a provider's refusal.
 */
export class ScriptedGatewayFactory extends OfflineGatewayFactory {
  override configureContainer (): ContainerConfiguration {
    const offline = new OfflineStateReader()
    const reader = new (class extends PaymentStateReader {
      read (record: Record<string, unknown>): PaymentState | undefined {
        const state = offline.read(record)
        const details = record.details as Record<string, unknown> | undefined
        return state === undefined ? undefined : { ...state, ...(details?.reading as Partial<PaymentState> | undefined) }
      }
    })()
    return { ...super.configureContainer(), [serviceId(PaymentStateReader)]: factory(() => reader) }
  }

  override getActions (): ActionEntry[] {
    class SyncAction implements Action {
      supports (request: unknown): boolean {
        return request instanceof Sync && request.model instanceof ArrayObject
      }

      execute (request: Sync): void {
        const details = request.model as ArrayObject
        const to = details.get<string | undefined>('syncTo')
        if (to !== undefined && details.get('status') !== to) details.set('status', to)
      }
    }
    class DecliningRefundAction implements Action {
      supports (request: unknown): boolean {
        return request instanceof Refund && request.model instanceof ArrayObject && request.model.get('decline') === true
      }

      execute (): void {
        throw providerError({ provider: 'Scripted', providerCode: 'REFUND_DECLINED', message: 'the provider declined the refund' })
      }
    }
    return [DecliningRefundAction, SyncAction, ...super.getActions()]
  }
}
