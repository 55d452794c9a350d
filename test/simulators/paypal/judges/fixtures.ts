import { request as httpRequest } from 'node:http'
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http'
import {
  AuthorizationIncompleteReason, AuthorizationStatus, CaptureIncompleteReason, CaptureStatus, CheckoutPaymentIntent, Client,
  Environment, LinkHttpMethod, OrderStatus, RefundIncompleteReason, RefundStatus, SellerProtectionStatus, DisputeCategory
} from '@paypal/paypal-server-sdk'
import type { RouteOptions } from 'fastify'
import { buildPaypalSimulator } from '../../../../simulators/paypal/index.ts'
import type { PaypalSimulator, PaypalSimulatorOptions } from '../../../../simulators/paypal/index.ts'

export const CLIENT = { clientId: 'judge-client', clientSecret: 'judge-secret' }

interface Teardown { teardown: (fn: () => unknown) => void }

export interface Judged {
  app: PaypalSimulator
  /** Method and route pattern of every route the simulator serves. */
  routes: Array<{ method: string, pattern: RegExp }>
}

/** A listening simulator whose routes are recorded as they are registered, to check advertised links against. */
export async function judgedSimulator (t: Teardown, options: PaypalSimulatorOptions = {}): Promise<Judged> {
  const app = buildPaypalSimulator({ clients: [CLIENT], ...options })
  const routes: Judged['routes'] = []
  app.addHook('onRoute', (route: RouteOptions) => {
    const pattern = new RegExp(`^${route.url.replace(/:[^/]+/g, '[^/]+').replace(/\/$/, '')}/?$`)
    for (const method of [route.method].flat()) routes.push({ method, pattern })
  })
  t.teardown(() => app.close())
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, routes }
}

/**
 * PayPal's server SDK knows two hosts only (getBaseUri: Production, Sandbox). Its
 * `unstable_httpClientOptions` are axios's request config, whose `transport` option takes the connection:
 * every byte of every request is still the SDK's own, it only reaches the simulator on loopback.
 */
export function serverSdk (app: PaypalSimulator): Client {
  const port = Number(new URL(app.listeningOrigin).port)
  const transport = {
    request: (options: RequestOptions & { agents?: unknown }, callback: (response: IncomingMessage) => void): ClientRequest =>
      httpRequest({ ...options, protocol: 'http:', hostname: '127.0.0.1', host: '127.0.0.1', port, agent: undefined }, callback)
  }
  return new Client({
    clientCredentialsAuthCredentials: { oAuthClientId: CLIENT.clientId, oAuthClientSecret: CLIENT.clientSecret },
    environment: Environment.Sandbox,
    timeout: 10_000,
    unstable_httpClientOptions: { transport }
  })
}

/** The SDK's own enums, which bound what PayPal may send in each field. */
const ENUMS = {
  intent: Object.values(CheckoutPaymentIntent),
  order: Object.values(OrderStatus),
  capture: Object.values(CaptureStatus),
  authorization: Object.values(AuthorizationStatus),
  refund: Object.values(RefundStatus),
  captureReason: Object.values(CaptureIncompleteReason),
  authorizationReason: Object.values(AuthorizationIncompleteReason),
  refundReason: Object.values(RefundIncompleteReason),
  method: Object.values(LinkHttpMethod),
  protection: Object.values(SellerProtectionStatus),
  category: Object.values(DisputeCategory)
} as const

type Kind = 'order' | 'capture' | 'authorization' | 'refund'

/**
 * Every value the SDK types as an enum must be one of its enum's values: the SDK parses them leniently
 * (stringEnum(…, true)), so the judge holds the simulator to them. Returns the problems found.
 */
export function enumProblems (resource: Record<string, any>, kind: Kind, path: string = kind): string[] {
  const problems: string[] = []
  const check = (value: unknown, allowed: readonly string[], where: string): void => {
    if (value !== undefined && !allowed.includes(value as string)) problems.push(`${where}: ${String(value)} is not one of ${allowed.join(', ')}`)
  }
  check(resource.status, ENUMS[kind], `${path}.status`)
  const reasons = { order: [], capture: ENUMS.captureReason, authorization: ENUMS.authorizationReason, refund: ENUMS.refundReason }[kind]
  check(resource.status_details?.reason, reasons, `${path}.status_details.reason`)
  if (kind === 'order') check(resource.intent, ENUMS.intent, `${path}.intent`)
  check(resource.seller_protection?.status, ENUMS.protection, `${path}.seller_protection.status`)
  for (const category of resource.seller_protection?.dispute_categories ?? []) check(category, ENUMS.category, `${path}.seller_protection.dispute_categories`)
  for (const link of resource.links ?? []) check(link.method, ENUMS.method, `${path}.links[${String(link.rel)}].method`)
  const payments = resource.purchase_units?.[0]?.payments ?? {}
  for (const [key, nested] of [['captures', 'capture'], ['authorizations', 'authorization'], ['refunds', 'refund']] as const) {
    for (const [index, entry] of (payments[key] ?? []).entries()) problems.push(...enumProblems(entry, nested, `${path}.${key}[${String(index)}]`))
  }
  return problems
}

const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())

/**
 * Fields of the raw answer that the SDK's models do not have: the SDK maps every field it knows to
 * camelCase and drops the others, so a raw key with no mapped twin is a field PayPal's schemas do not define.
 */
export function unknownFields (raw: unknown, mapped: unknown, path = ''): string[] {
  if (Array.isArray(raw)) return raw.flatMap((entry, index) => unknownFields(entry, (mapped as unknown[] | undefined)?.[index], `${path}[${String(index)}]`))
  if (raw === null || typeof raw !== 'object') return []
  const known = (mapped ?? {}) as Record<string, unknown>
  return Object.entries(raw).flatMap(([key, value]) => camel(key) in known
    ? unknownFields(value, known[camel(key)], `${path}/${key}`)
    : [`${path}/${key}`])
}

/** Links the simulator advertises but does not serve. */
export function unservedLinks (judged: Judged, resource: unknown): string[] {
  const links: Array<{ href: string, method: string }> = []
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>
      if (Array.isArray(record.links)) links.push(...record.links as Array<{ href: string, method: string }>)
      Object.values(record).forEach(walk)
    }
  }
  walk(resource)
  return links.filter((link) => {
    const url = new URL(link.href)
    // Information links point at PayPal's documentation, not at the API.
    if (url.origin !== judged.app.listeningOrigin) return !url.hostname.endsWith('paypal.com')
    return !judged.routes.some((route) => route.method === link.method && route.pattern.test(url.pathname))
  }).map((link) => `${link.method} ${link.href}`)
}
