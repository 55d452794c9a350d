import type { TSchema } from '@sinclair/typebox'
import type { FastifySchema } from 'fastify'
import {
  DoneResponse, EmptyResponse, ErrorReply, GatewayParams, HealthReportSchema, HtmlPage, RedirectResponse, ReturnQuery, TokenParams
} from './schemas.ts'

/*
 * The payment routes' schemas: what Fastify validates and serializes, and what OpenAPI
 * generators (@fastify/swagger) document — tags, summaries, operation ids and every status a
 * route answers. Fastify reads its own keys and ignores the others.
 */

/** The OpenAPI tag of every Paywire route. */
export const PAYWIRE_TAG = 'paywire'

export interface OperationDocs {
  summary: string
  description?: string
  operationId: string
  tags?: string[]
}

/** A route's schema: what Fastify validates requests with, and every answer (documentation and serialization). */
export interface RouteSchema<P extends TSchema = TSchema> extends FastifySchema {
  params?: P
  querystring?: typeof ReturnQuery
  response: Record<string, unknown>
}

/** A route schema with its OpenAPI documentation keys (typed apart: FastifySchema does not declare them). */
function documented<S extends RouteSchema> (docs: OperationDocs, schema: S): S {
  return { tags: [PAYWIRE_TAG], ...docs, ...schema }
}

const TOKEN_DOCS: Record<string, { summary: string, description: string }> = {
  capture: {
    summary: 'Take a payment (the buyer\'s payment link)',
    description: 'Runs Capture through the token\'s gateway: the buyer is sent to the provider (302) or shown its page, and comes back to the same URL. Used up once the payment completes.'
  },
  authorize: {
    summary: 'Authorize a payment, to capture it later',
    description: 'Runs Authorize through the token\'s gateway, like capture. Used up once the payment completes.'
  },
  payout: { summary: 'Send a payout', description: 'Runs Payout through the token\'s gateway. Used up once it completes.' },
  refund: { summary: 'Refund a payment', description: 'Runs Refund through the token\'s gateway. Used up once it completes.' },
  cancel: { summary: 'Cancel a payment', description: 'Runs Cancel through the token\'s gateway. Used up once it completes.' },
  sync: { summary: 'Sync a payment with its provider', description: 'Runs Sync: reads the provider\'s state of the payment. May be used again.' },
  notify: {
    summary: 'Receive a notification about one payment',
    description: 'Runs Notify for the token\'s payment (providers that call a URL per payment). May be used again.'
  }
}

/** The operation id's stem of a token route: capture → paywireCapture. */
export function operationStem (kind: string): string {
  return `paywire${kind.charAt(0).toUpperCase()}${kind.slice(1)}`
}

/** Every status a token route answers; `method` makes the operation id (one per method, as OpenAPI wants them unique). */
export function tokenRouteSchema (kind: string, method: 'GET' | 'POST'): RouteSchema<typeof TokenParams> {
  const docs = TOKEN_DOCS[kind]!
  return documented({ ...docs, operationId: `${operationStem(kind)}${method === 'GET' ? '' : 'Post'}` }, {
    params: TokenParams,
    querystring: ReturnQuery,
    response: {
      200: { description: 'A page from the gateway (a form that posts the buyer on to the provider).', content: { 'text/html': { schema: HtmlPage } } },
      204: { ...EmptyResponse, description: 'Done, and the token has no after URL.' },
      302: { ...RedirectResponse, description: 'To the provider (approval, 3-D Secure), or to the token\'s after URL once the gateway is done.' },
      303: { ...RedirectResponse, description: 'The link was already used: to its result (the after URL).' },
      '4xx': ErrorReply,
      '5xx': ErrorReply
    }
  })
}

/**
 * HEAD never runs a gateway: a link scanner's HEAD must not capture a payment. `operationId`
 * is the GET route's: @fastify/swagger (exposeHeadRoutes) documents it with "-head" appended.
 */
export function headRouteSchema (operationId: string, allow: string, params: TSchema = TokenParams): RouteSchema {
  return documented({ summary: 'Refused: HEAD never runs a gateway', operationId }, {
    params,
    response: {
      405: { ...EmptyResponse, description: 'Method Not Allowed; Allow lists the methods.', headers: { allow: { type: 'string', example: allow } } }
    }
  })
}

export function unsafeNotifySchema (method: 'GET' | 'POST'): RouteSchema<typeof GatewayParams> {
  return documented({
    summary: 'Receive a provider\'s webhook for a gateway',
    description: 'The gateway verifies the delivery and locates its payment, whose Notify runs as its only writer (PayPal, Stripe: one static webhook URL).',
    operationId: `paywireNotifyGateway${method === 'GET' ? '' : 'Post'}`
  }, {
    params: GatewayParams,
    querystring: ReturnQuery,
    response: {
      200: { description: 'The gateway\'s answer to the provider.', content: { 'text/html': { schema: HtmlPage } } },
      204: { ...EmptyResponse, description: 'Taken.' },
      '4xx': ErrorReply,
      '5xx': ErrorReply
    }
  })
}

export const doneRouteSchema: RouteSchema<typeof TokenParams> = documented({
  summary: 'The payment\'s result',
  description: 'Where the buyer lands after paying: the status as JSON, or the done page for a browser. Reading it changes nothing.',
  operationId: 'paywireDone'
}, {
  params: TokenParams,
  querystring: ReturnQuery,
  response: {
    200: { description: 'The payment\'s status.', content: { 'application/json': { schema: DoneResponse }, 'text/html': { schema: HtmlPage } } },
    302: { ...RedirectResponse, description: 'The gateway sends the buyer on (a status it must ask the provider for).' },
    '4xx': ErrorReply,
    '5xx': ErrorReply
  }
})

export const healthRouteSchema: RouteSchema = documented({
  summary: 'Can this instance take payments?',
  description: 'Pings the storage backend and reads the event outbox, each check bounded by a timeout (docs/operations.md).',
  operationId: 'paywireHealth'
}, {
  response: {
    200: { ...HealthReportSchema, description: 'ok or degraded.' },
    503: { ...HealthReportSchema, description: 'down: the storage or the event outbox does not answer.' }
  }
})
