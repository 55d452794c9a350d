import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiError, invalidRequest, StripeApiError } from './errors.ts'
import { FormSyntaxError, parseForm } from './form.ts'
import type { FormObject } from './form.ts'
import type { Runtime } from './runtime.ts'

/*
 * What every answer shares: a `Request-Id` header (https://docs.stripe.com/api/request_ids),
 * Stripe's error bodies (https://docs.stripe.com/api/errors), form-encoded bodies, and API-key
 * authentication (https://docs.stripe.com/api/authentication): the secret key as the Basic-auth
 * user name (no password), or as a Bearer token.
 */

export function isApi (request: FastifyRequest): boolean {
  return request.url.startsWith('/v1/')
}

function apiKey (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const [scheme, value = ''] = header.split(' ')
  if (scheme?.toLowerCase() === 'bearer') return value
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(value, 'base64').toString('utf8').split(':')[0]
  return undefined
}

/** `sk_test_…abcd` shown as Stripe does in "Invalid API Key provided": the end only. */
function redact (key: string): string {
  return key.length > 12 ? `${key.slice(0, 8)}****${key.slice(-4)}` : '*'.repeat(key.length)
}

export function installProtocol (app: FastifyInstance, runtime: Runtime): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseForm(body as string))
    } catch (error) {
      done(invalidRequest(`Invalid request: ${(error as FormSyntaxError).message}`, undefined, (error as FormSyntaxError).key) as unknown as FastifyError)
    }
  })

  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', runtime.context(request).requestId)
    runtime.tick()
  })

  app.addHook('preHandler', async (request) => {
    if (!isApi(request)) return
    const key = apiKey(request.headers.authorization)
    if (key === undefined || key === '') {
      throw invalidRequest('You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\'). See https://stripe.com/docs/api#authentication for details, or we can help at https://support.stripe.com/.', undefined, undefined, 401)
    }
    if (!runtime.store.config.apiKeys.includes(key)) throw invalidRequest(`Invalid API Key provided: ${redact(key)}`, undefined, undefined, 401)
  })

  app.setErrorHandler(async (error: FastifyError | StripeApiError, request, reply) => {
    let answer: StripeApiError
    if (error instanceof StripeApiError) answer = error
    else if (error instanceof FormSyntaxError) answer = invalidRequest(`Invalid request: ${error.message}`, undefined, error.key)
    else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      answer = invalidRequest(`Invalid request: ${error.message}. Stripe's API takes application/x-www-form-urlencoded bodies.`)
    } else {
      request.log.error({ err: error }, 'Stripe simulator failure')
      answer = apiError()
    }
    runtime.context(request).saved = answer.saved
    return await reply.code(answer.statusCode).type('application/json').send(answer.body)
  })

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] as string
    return await reply.code(404).send({ error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.` } })
  })
}

/** The parsed form body (empty for none). */
export function body (request: FastifyRequest): FormObject {
  return (request.body ?? {}) as FormObject
}

export function query (request: FastifyRequest): FormObject {
  return request.query as FormObject
}

export async function json (reply: FastifyReply, value: unknown): Promise<FastifyReply> {
  return await reply.type('application/json').send(value)
}
