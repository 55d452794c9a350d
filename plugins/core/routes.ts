import { setTimeout as sleep } from 'node:timers/promises'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import helmet, { type FastifyHelmetOptions } from '@fastify/helmet'
import Fastify, { type FastifyError, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify'
import {
  Authorize, Cancel, Capture, GetHumanStatus, LocateNotification, Notify, Payout, Refund, Sync, errorCodes, isErrorCode, runWithHttpRequest,
  type Generic, type Paywire, type ReadCache, type RequestNotSupportedError, type Token, type TokenClaim
} from './engine/index.ts'
import { donePayload } from './done.ts'
import { buyerErrorHandler, routeNotFound } from './error-pages.ts'
import { addRawBodyParsers, httpRequestData, sendReply, validationError } from './http.ts'
import { prefersHtml, type BuyerPages } from './pages.ts'
import { doneRouteSchema, headRouteSchema, operationStem, tokenRouteSchema, unsafeNotifySchema } from './route-schemas.ts'
import { GatewayParams, TokenParams } from './schemas.ts'
import type { TSchema } from '@sinclair/typebox'

export interface PaywireRoutesOptions {
  paywire: Paywire
  /** Path of the base URL ("/" or "/shop/"): token URLs carry it, requests behind a proxy may not. */
  basePath: string
  /** The buyer's pages: done, errors, busy. */
  pages: BuyerPages
  /** Security headers through @fastify/helmet, unless the application registered its own. */
  securityHeaders: boolean
}

/**
 * The CSP of Paywire's own pages (done, errors, busy): no scripts, inline styles only,
 * never framed. Gateway replies (an auto-submitting form to a 3-D Secure page) keep the
 * baseline policy below, which only forbids framing, <base> and plugins.
 */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
const BASELINE_CSP_DIRECTIVES = {
  // (@fastify/helmet re-exports helmet's CSP helpers on its default export; its types omit them.)
  defaultSrc: (helmet as unknown as { contentSecurityPolicy: { dangerouslyDisableDefaultSrc: never } }).contentSecurityPolicy.dangerouslyDisableDefaultSrc,
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"]
}

/**
 * How each token route behaves. Every one runs the gateway as the payment's only writer
 * (ExclusiveExecutor): it claims the payment, and commits the payment's changes with the
 * claim's release and, on completion, the token's invalidation. Capture-like tokens survive
 * replies (off-site gateways send the buyer back to the same URL) and are used up on
 * completion, like refund and cancel tokens; sync and notify tokens may be used again.
 * Without a reply, the route redirects to the token's after URL, or answers 204.
 */
interface RouteSpec {
  kind: string
  createRequest: (token: Token) => Generic
  invalidate: boolean
}

const ROUTES: RouteSpec[] = [
  { kind: 'capture', createRequest: (token) => new Capture(token), invalidate: true },
  { kind: 'authorize', createRequest: (token) => new Authorize(token), invalidate: true },
  { kind: 'payout', createRequest: (token) => new Payout(token), invalidate: true },
  { kind: 'refund', createRequest: (token) => new Refund(token), invalidate: true },
  { kind: 'cancel', createRequest: (token) => new Cancel(token), invalidate: true },
  { kind: 'sync', createRequest: (token) => new Sync(token), invalidate: false },
  { kind: 'notify', createRequest: (token) => new Notify(token), invalidate: false }
]

/** How long a token route waits for a payment another request holds before it answers 409 PAYWIRE_ERR_PAYMENT_BUSY. */
export const BUSY_WAIT_MS = 2000

/** The payment routes, the same for every gateway. Registered by the paywire plugin under its prefix. */
export const paywireRoutes: FastifyPluginAsync<PaywireRoutesOptions> = async function paywireRoutes (parent, options) {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>()
  const { paywire, basePath, pages } = options
  const verifier = paywire.getHttpRequestVerifier()
  const executor = paywire.getExclusiveExecutor()
  // The application's own helmet (registered before) already covers these routes.
  const ownHeaders = options.securityHeaders && !app.hasReplyDecorator('helmet')
  if (ownHeaders) {
    const headers = await helmetHeaders({
      contentSecurityPolicy: { useDefaults: false, directives: BASELINE_CSP_DIRECTIVES },
      referrerPolicy: { policy: 'no-referrer' },
      xFrameOptions: { action: 'deny' },
      // HSTS covers the whole host: the application's decision, not a payment route's.
      strictTransportSecurity: false
    })
    app.addHook('onRequest', function paywireSecurityHeaders (_request, reply, done) {
      reply.headers(headers)
      done()
    })
  }
  /** Marks a response as one of Paywire's own pages. */
  const ownPage = (reply: FastifyReply): FastifyReply => ownHeaders ? reply.header('content-security-policy', PAGE_CSP) : reply
  addRawBodyParsers(app)

  /** The URL the buyer used, as the token factory wrote it (base path included). */
  const publicUrl = (request: FastifyRequest): string => basePath === '/' ? request.url : `${basePath.slice(0, -1)}${request.url}`

  const handleError = buyerErrorHandler({ paywire, pages, publicUrl })
  app.setErrorHandler<FastifyError>(async function paywireRoutesErrorHandler (error, request, reply) {
    if (prefersHtml(request)) ownPage(reply)
    return await handleError.call(this, error, request, reply)
  })
  app.setSchemaErrorFormatter(validationError)
  app.setNotFoundHandler(function paywireRouteNotFound (request) {
    throw routeNotFound(request)
  })

  /**
   * A token sent to another route than its own (a capture link on the done route) answers as
   * an unknown one, 404 with the same body and page: a different answer would tell whoever
   * tries hashes on a route that the hash exists elsewhere. The operator still reads why: a
   * wrong baseUrl behind a proxy sends every token to a path that is not its own.
   */
  const asUnknownOnOtherRoutes = (request: FastifyRequest, error: unknown): unknown => {
    if (!isErrorCode(error, 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH')) return error
    request.log.info({ paywire: { code: 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH' } },
      'paywire: a payment token was sent to another route than its own; answered as unknown (behind a proxy, check baseUrl)')
    return new errorCodes.PAYWIRE_ERR_TOKEN_NOT_FOUND()
  }

  const runGateway = (request: FastifyRequest, gatewayName: string, paywireRequest: unknown, reads?: ReadCache) =>
    runWithHttpRequest(httpRequestData(request, publicUrl(request)), () =>
      paywire.getGateway(gatewayName).execute(paywireRequest, { catchReply: true, reads }))

  /**
   * The token and the claim on its payment; a used token whose payment has a result page sends
   * the buyer there. A payment another request holds (a provider's webhook arriving with the
   * buyer's return, a double click) is waited for briefly, polling the claim: the buyer then
   * runs after it, or lands on its result, instead of reading a 409.
   */
  const claimToken = async (request: FastifyRequest, params: TokenParams): Promise<TokenClaim | string> => {
    const deadline = Date.now() + BUSY_WAIT_MS
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      try {
        return await verifier.verifyAndClaim({ url: publicUrl(request), params, query: request.query as Record<string, unknown>, body: request.body },
          executor.claimTtlMs)
      } catch (error) {
        if (isErrorCode(error, 'PAYWIRE_ERR_PAYMENT_BUSY') && Date.now() + pause < deadline) {
          await sleep(pause)
          continue
        }
        // A double-clicked or reloaded return after the payment completed: its result, not an error.
        const afterUrl = (error as { afterUrl?: string | null }).afterUrl
        if (isErrorCode(error, 'PAYWIRE_ERR_TOKEN_USED') && typeof afterUrl === 'string') return afterUrl
        throw asUnknownOnOtherRoutes(request, error)
      }
    }
  }

  /**
   * Fastify answers HEAD wherever GET is, by running the GET handler: a link scanner or a
   * prefetcher would then capture the payment. HEAD never runs a gateway here.
   */
  const headNotAllowed = (url: string, methods: string, operationId: string, params: TSchema = TokenParams) => app.route({
    method: 'HEAD',
    url,
    schema: headRouteSchema(operationId, methods, params),
    handler: async function paywireHeadNotAllowed (_request, reply) {
      // No body, no content type (the schema's null would serialize one).
      return (reply as FastifyReply).code(405).header('allow', methods).header('cache-control', 'no-store').send()
    }
  })

  /** A token route's handler: the claim, the gateway run as the payment's only writer, its reply. */
  const tokenRoute = (spec: RouteSpec) => async function paywireTokenRoute (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const claimed = await claimToken(request, request.params as TokenParams)
    if (typeof claimed === 'string') return reply.redirect(claimed, 303)
    const { token, claim, reads } = claimed
    let gateway
    try {
      gateway = paywire.getGateway(token.gatewayName)
    } catch (error) {
      await verifier.tokenStorage.releaseClaim(claim)
      throw error
    }
    let result
    try {
      ({ reply: result } = await runWithHttpRequest(httpRequestData(request, publicUrl(request)), () =>
        executor.execute(gateway, token, (target) => spec.createRequest(target as Token), { claim, invalidateToken: spec.invalidate ? token : undefined, reads })))
    } catch (error) {
      // Another request completed with this link first (only a token storage whose claim
      // missed that can let this one run): nothing of this run was stored, and the buyer
      // lands on the result, as a reload of a used link does.
      if (isErrorCode(error, 'PAYWIRE_ERR_TOKEN_USED_BEFORE_COMMIT') && token.afterUrl !== null) return reply.redirect(token.afterUrl, 303)
      throw error
    }
    return result === undefined ? finish(reply, token.afterUrl) : sendReply(reply, result)
  }

  for (const spec of ROUTES) {
    headNotAllowed(`/${spec.kind}/:token`, 'GET, POST', operationStem(spec.kind))
    const handler = tokenRoute(spec)
    // GET and POST apart: one route with both methods would document one operation id twice.
    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: `/${spec.kind}/:token`,
        exposeHeadRoute: false,
        schema: tokenRouteSchema(spec.kind, method),
        handler: async (request, reply) => await handler(request, reply)
      })
    }
  }

  /**
   * Gateway-wide notifications, for providers with one static webhook URL (PayPal, Stripe): the
   * gateway verifies the delivery and says where its payment is, and the payment's Notify runs
   * as its only writer (Paywire.receiveNotification()), like every token route.
   */
  headNotAllowed('/notify/unsafe/:gateway', 'GET, POST', 'paywireNotifyGateway', GatewayParams)
  const unsafeNotifyRoute = async function paywireUnsafeNotifyRoute (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { gateway } = request.params as GatewayParams
    // The name comes from the caller: unknown names and gateways without notifications are 404s, not bugs.
    if (!paywire.hasGateway(gateway)) throw new errorCodes.PAYWIRE_ERR_UNKNOWN_GATEWAY(gateway, '')
    let result
    try {
      result = await runWithHttpRequest(httpRequestData(request, publicUrl(request)), () => paywire.receiveNotification(gateway))
    } catch (error) {
      if ((error as RequestNotSupportedError).request instanceof LocateNotification) throw new errorCodes.PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED(gateway)
      throw error
    }
    return result === undefined ? finish(reply, null) : sendReply(reply, result)
  }
  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method,
      url: '/notify/unsafe/:gateway',
      exposeHeadRoute: false,
      schema: unsafeNotifySchema(method),
      handler: async (request, reply) => await unsafeNotifyRoute(request, reply)
    })
  }

  headNotAllowed('/done/:token', 'GET', 'paywireDone')
  app.get('/done/:token', { exposeHeadRoute: false, schema: doneRouteSchema }, async function paywireDoneRoute (request, reply) {
    // The token and its payment in one round trip where the store keeps them side by side.
    const { token, reads } = await verifier.verifyAndRead({ url: publicUrl(request), params: request.params as TokenParams, query: request.query as Record<string, unknown> })
      .catch((error: unknown) => { throw asUnknownOnOtherRoutes(request, error) })
    const status = new GetHumanStatus(token)
    const result = await runGateway(request, token.gatewayName, status, reads)
    if (result !== undefined) return sendReply(reply, result)
    const payload = donePayload(status, pages.doneFields)
    reply.header('cache-control', 'no-store')
    // A page, not the JSON the response schema describes.
    if (prefersHtml(request)) return ownPage(reply as FastifyReply).type('text/html; charset=utf-8').send(await pages.done(payload, request))
    return payload
  })
}

/**
 * The headers @fastify/helmet sets with these options, worked out once. Registered on the
 * routes, it rebuilt the helmet middleware (parsing the CSP directives) on every request:
 * 4% of the server's CPU under load, for headers that never change.
 */
async function helmetHeaders (options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify()
  try {
    await probe.register(helmet, { ...options, global: true })
    probe.get('/', async () => '')
    const plain = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive'])
    const { headers } = await probe.inject('/')
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !plain.has(name)).map(([name, value]) => [name, String(value)]))
  } finally {
    await probe.close()
  }
}

function finish (reply: FastifyReply, afterUrl: string | null): FastifyReply {
  return afterUrl === null ? reply.code(204).send() : reply.redirect(afterUrl, 302)
}
