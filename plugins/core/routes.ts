import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import {
  Authorize, Cancel, Capture, GetHumanStatus, Notify, Payout, Refund, Sync, WriteBatch, errorCodes, runWithHttpRequest,
  type Generic, type Paywire, type RequestNotSupportedError, type Token
} from './engine/index.ts'
import { donePayload, renderDonePage } from './done.ts'
import { addRawBodyParsers, httpRequestData, paywireErrorHandler, sendReply, validationError } from './http.ts'
import { DoneResponse, ErrorResponse, GatewayParams, ReturnQuery, TokenParams } from './schemas.ts'

export interface PaywireRoutesOptions {
  paywire: Paywire
  tokenLockMs: number
  /** Path of the base URL ("/" or "/shop/"): token URLs carry it, requests behind a proxy may not. */
  basePath: string
}

/**
 * How each token route behaves. Claimed routes let one request at a time run the gateway.
 * Capture-like tokens survive replies (off-site gateways send the buyer back to the same
 * URL) and die on completion, like refund and cancel tokens; sync and notify tokens may be
 * used again. Without a reply, the route redirects to the token's after URL, or answers 204.
 */
interface RouteSpec {
  kind: string
  createRequest: (token: Token) => Generic
  claim: boolean
  invalidate: boolean
}

const ROUTES: RouteSpec[] = [
  { kind: 'capture', createRequest: (token) => new Capture(token), claim: true, invalidate: true },
  { kind: 'authorize', createRequest: (token) => new Authorize(token), claim: true, invalidate: true },
  { kind: 'payout', createRequest: (token) => new Payout(token), claim: true, invalidate: true },
  { kind: 'refund', createRequest: (token) => new Refund(token), claim: true, invalidate: true },
  { kind: 'cancel', createRequest: (token) => new Cancel(token), claim: true, invalidate: true },
  { kind: 'sync', createRequest: (token) => new Sync(token), claim: false, invalidate: false },
  { kind: 'notify', createRequest: (token) => new Notify(token), claim: false, invalidate: false }
]

const tokenRouteSchema = {
  params: TokenParams,
  querystring: ReturnQuery,
  response: { '4xx': ErrorResponse, '5xx': ErrorResponse }
}

/** The payment routes, the same for every gateway. Registered by the paywire plugin under its prefix. */
export const paywireRoutes: FastifyPluginAsync<PaywireRoutesOptions> = async function paywireRoutes (parent, options) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>()
  const { paywire, tokenLockMs, basePath } = options
  const verifier = paywire.getHttpRequestVerifier()
  addRawBodyParsers(app)
  app.setErrorHandler(paywireErrorHandler)
  app.setSchemaErrorFormatter(validationError)
  app.setNotFoundHandler(function paywireRouteNotFound (request) {
    throw new errorCodes.PAYWIRE_ERR_ROUTE_NOT_FOUND(request.method, request.url.split('?')[0] as string)
  })

  /** The URL the buyer used, as the token factory wrote it (base path included). */
  const publicUrl = (request: FastifyRequest): string => basePath === '/' ? request.url : `${basePath.slice(0, -1)}${request.url}`

  const runGateway = (request: FastifyRequest, gatewayName: string, paywireRequest: unknown, writes?: WriteBatch) =>
    runWithHttpRequest(httpRequestData(request, publicUrl(request)), () =>
      paywire.getGateway(gatewayName).execute(paywireRequest, { catchReply: true, writes }))

  for (const spec of ROUTES) {
    app.route({
      method: ['GET', 'POST'],
      url: `/${spec.kind}/:token`,
      schema: tokenRouteSchema,
      handler: async function paywireTokenRoute (request, reply) {
        const token = await verifier.verify({ url: publicUrl(request), params: request.params, query: request.query, body: request.body },
          spec.claim ? { lockMs: tokenLockMs } : {})
        // The models the gateway saves and the token's invalidation or release leave together,
        // in one round trip on a pipelining store, and before the answer does.
        const writes = new WriteBatch()
        let result
        try {
          result = await runGateway(request, token.gatewayName, spec.createRequest(token), writes)
        } catch (error) {
          if (spec.claim) writes.add(() => verifier.release(token))
          await writes.flush().catch((failure: unknown) => {
            request.log.error({ err: failure }, 'paywire: saving after a failed gateway request failed too')
          })
          throw error
        }
        if (result === undefined && spec.invalidate) writes.add(() => verifier.invalidate(token))
        else if (spec.claim) writes.add(() => verifier.release(token))
        await writes.flush()
        return result === undefined ? finish(reply, token.afterUrl) : sendReply(reply, result)
      }
    })
  }

  /** Gateway-wide notifications, for providers with one static webhook URL (PayPal). */
  app.route({
    method: ['GET', 'POST'],
    url: '/notify/unsafe/:gateway',
    schema: { params: GatewayParams, querystring: ReturnQuery, response: { '4xx': ErrorResponse, '5xx': ErrorResponse } },
    handler: async function paywireUnsafeNotifyRoute (request, reply) {
      const { gateway } = request.params
      // The name comes from the caller: unknown names and gateways without notifications are 404s, not bugs.
      if (!paywire.hasGateway(gateway)) throw new errorCodes.PAYWIRE_ERR_UNKNOWN_GATEWAY(gateway, '')
      const notify = new Notify(null)
      let result
      try {
        result = await runGateway(request, gateway, notify)
      } catch (error) {
        if ((error as RequestNotSupportedError).request === notify) throw new errorCodes.PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED(gateway)
        throw error
      }
      return result === undefined ? finish(reply, null) : sendReply(reply, result)
    }
  })

  app.get('/done/:token', {
    schema: { params: TokenParams, querystring: ReturnQuery, response: { 200: DoneResponse, '4xx': ErrorResponse, '5xx': ErrorResponse } }
  }, async function paywireDoneRoute (request, reply) {
    const token = await verifier.verify({ url: publicUrl(request), params: request.params, query: request.query })
    const status = new GetHumanStatus(token)
    const result = await runGateway(request, token.gatewayName, status)
    if (result !== undefined) return sendReply(reply, result)
    const payload = donePayload(status)
    reply.header('cache-control', 'no-store')
    // A page, not the JSON the response schema describes.
    if (prefersHtml(request)) return (reply as FastifyReply).type('text/html; charset=utf-8').send(await renderDonePage(payload))
    return payload
  })
}

function finish (reply: FastifyReply, afterUrl: string | null): FastifyReply {
  return afterUrl === null ? reply.code(204).send() : reply.redirect(afterUrl, 302)
}

/** Browsers ask for text/html first; API clients (and curl's * / *) get JSON. */
function prefersHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? ''
  const html = accept.indexOf('text/html')
  const json = accept.indexOf('application/json')
  return html !== -1 && (json === -1 || html < json)
}
