import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { HttpResponse, errorCodes, type HttpRequestData, type Reply } from './engine/index.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received (payment routes only): signatures are computed over these bytes. */
    paywireRawBody: string | null
  }
}

/**
 * Body parsing for the payment routes: JSON (webhooks), forms (gateways posting the buyer
 * back) and anything else as text; the raw text is kept for signature checks. Registered
 * inside the routes' own context, so the application's parsers are untouched.
 */
export function addRawBodyParsers (routes: FastifyInstance): void {
  routes.decorateRequest('paywireRawBody', null)
  const parseJson = routes.getDefaultJsonParser('error', 'error')
  routes.removeAllContentTypeParsers()
  routes.addContentTypeParser('application/json', { parseAs: 'string' }, function paywireJsonBody (request, body, done) {
    request.paywireRawBody = body as string
    if (body === '') return done(null, undefined)
    parseJson(request, body as string, (error, parsed) => {
      if (error !== null) return done(new errorCodes.PAYWIRE_ERR_INVALID_BODY('the JSON body does not parse'), undefined)
      done(null, parsed)
    })
  })
  routes.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, function paywireFormBody (request, body, done) {
    request.paywireRawBody = body as string
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
  routes.addContentTypeParser('*', { parseAs: 'string' }, function paywireTextBody (request, body, done) {
    request.paywireRawBody = body as string
    done(null, body)
  })
}

/** What GetHttpRequest gives gateway actions. */
export function httpRequestData (request: FastifyRequest, uri: string): HttpRequestData {
  const body = request.body
  return {
    method: request.method,
    uri,
    query: request.query as Record<string, unknown>,
    request: body !== null && typeof body === 'object' ? body as Record<string, unknown> : {},
    content: request.paywireRawBody ?? '',
    headers: request.headers,
    clientIp: request.ip,
    userAgent: request.headers['user-agent'] ?? '',
    log: request.log
  }
}

/** Replies become responses: a redirect (302 + Location), a page, or any status, headers and body. */
export function sendReply (reply: FastifyReply, result: Reply): FastifyReply {
  if (!(result instanceof HttpResponse)) {
    throw new errorCodes.PAYWIRE_ERR_UNSUPPORTED_REPLY(result.constructor.name)
  }
  reply.code(result.statusCode).headers(result.headers)
  if (reply.getHeader('content-type') === undefined) reply.type('text/html; charset=utf-8')
  return reply.send(result.content)
}

/**
 * Coded JSON errors for the payment routes. Client mistakes keep their 4xx code and
 * message; unexpected failures are logged and answered without internals, except for
 * Paywire's own codes, whose messages never carry secrets.
 */
export function paywireErrorHandler (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500
  const ours = typeof error.code === 'string' && error.code.startsWith('PAYWIRE_ERR_')
  if (statusCode >= 500) request.log.error({ err: error }, 'payment route failed')
  // A storage that is down mostly comes back within seconds (a busy payment's Retry-After is the pages' own).
  if (statusCode === 503) reply.header('retry-after', '1')
  return reply.code(statusCode).type('application/json; charset=utf-8').send({
    statusCode,
    code: typeof error.code === 'string' ? error.code : 'PAYWIRE_ERR_INTERNAL',
    error: STATUS_CODES[statusCode] ?? 'Error',
    message: statusCode < 500 || ours ? error.message : 'An unexpected error occurred; it has been logged.'
  })
}

/** Validation failures as one coded 400 naming what was wrong. */
export function validationError (errors: ReadonlyArray<{ instancePath: string, message?: string }>, dataVar: string): Error {
  const first = errors[0]
  const where = `${dataVar}${first?.instancePath.replace(/\//g, '.') ?? ''}`
  return new errorCodes.PAYWIRE_ERR_VALIDATION(where, first?.message ?? 'is invalid')
}
