import type { FastifyError, FastifyInstance } from 'fastify'
import { apiError, commonErrorBody, PaypalError } from './errors.ts'
import type { CommonErrorName } from './errors.ts'
import type { SimulatorRuntime } from './runtime.ts'

/** Form bodies (OAuth token call, approval page buttons) as a plain string map. */
export function addFormParser (app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, function parseForm (_request, body, done) {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}

function fastifyErrorName (error: FastifyError): CommonErrorName {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'UNSUPPORTED_MEDIA_TYPE'
  const status = error.statusCode ?? 500
  return status >= 400 && status < 500 ? 'MALFORMED_REQUEST' : 'INTERNAL_SERVICE_ERROR'
}

/**
 * Makes every answer look like PayPal's: only JSON bodies are parsed (anything else is 415),
 * bad JSON is MALFORMED_REQUEST, every error uses one of PayPal's shapes (never Fastify's),
 * and every response carries Paypal-Debug-Id.
 */
export function installPaypalProtocol (app: FastifyInstance, runtime: SimulatorRuntime): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, function parsePaypalJson (request, body, done) {
    const text = body as string
    runtime.context(request).rawBody = text
    if (text === '') {
      done(null, undefined)
      return
    }
    try {
      done(null, JSON.parse(text))
    } catch {
      done(apiError('MALFORMED_REQUEST'), undefined)
    }
  })

  // A call without a body (void, capture, execute…) is accepted whatever content type its client names:
  // PayPal's own server SDK sends an empty body as application/x-www-form-urlencoded. A body is JSON or 415.
  app.addContentTypeParser('*', { parseAs: 'string' }, function acceptEmptyBody (_request, body, done) {
    if (body === '') done(null, undefined)
    else done(apiError('UNSUPPORTED_MEDIA_TYPE'), undefined)
  })

  app.addHook('onSend', async function addPaypalDebugId (request, reply, payload) {
    reply.header('paypal-debug-id', runtime.context(request).debugId)
    return payload
  })

  // Each API's errors carry their own body (v1, Orders v2, OAuth); anything else is a v1 error.
  app.setErrorHandler(function answerLikePaypal (error, request, reply) {
    const paypalError = error instanceof PaypalError ? error : apiError(fastifyErrorName(error as FastifyError))
    if (paypalError.statusCode >= 500) request.log.error({ err: error }, 'PayPal simulator failed')
    return reply.code(paypalError.statusCode).send(paypalError.body(runtime.context(request).debugId))
  })

  app.setNotFoundHandler(function unknownPaypalResource (request, reply) {
    return reply.code(404).send(commonErrorBody('RESOURCE_NOT_FOUND', runtime.context(request).debugId))
  })
}
