import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { isClientFailure } from '../core/engine/index.ts'
import { sendPage } from './html.ts'
import { listPage } from './list.ts'
import { confirmPage, runOperation } from './operations.ts'
import type { ConsoleOperation } from './options.ts'
import { paymentBody } from './payment-page.ts'
import { errorPage, findPayment, isShowable, statusOf, viewOf, type ConsoleRequest, type ConsoleRuntime } from './runtime.ts'
import { PAYWIRE_ERR_CONSOLE_NOT_AUTHORIZED } from './codes.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What a console route does, for the authorize option. */
    paywireConsole?: ConsoleOperation | 'operation'
  }
}

const OPERATION_WORDS: Readonly<Record<ConsoleOperation, string>> = {
  view: 'view payments',
  refund: 'refund payments',
  cancel: 'cancel payments',
  capture: 'capture payments',
  sync: 'sync payments'
}

/** The operation a request is about: the route's, or its :operation parameter's (an unknown one is asked as 'view', then 404s). */
function operationOf (request: FastifyRequest): ConsoleOperation {
  const configured = request.routeOptions.config?.paywireConsole ?? 'view'
  if (configured !== 'operation') return configured
  const name = (request.params as { operation?: string }).operation
  return name === 'refund' || name === 'cancel' || name === 'capture' || name === 'sync' ? name : 'view'
}

/** Form posts, parsed in the console's own context (the application's parsers are untouched). */
function addFormParser (app: FastifyInstance): void {
  const type = 'application/x-www-form-urlencoded'
  if (app.hasContentTypeParser(type)) app.removeContentTypeParser(type)
  app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 16_384 }, function paywireConsoleForm (_request, body, done) {
    const fields: Record<string, string | string[]> = {}
    for (const [name, value] of new URLSearchParams(body as string)) {
      const seen = fields[name]
      fields[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
    }
    done(null, fields)
  })
}

export const consoleRoutes: FastifyPluginAsync<{ runtime: ConsoleRuntime }> = async function paywireConsoleRoutes (app, { runtime }) {
  addFormParser(app)

  // Every request asks the application first, with what it would do; only true lets it through.
  app.addHook('preHandler', async function paywireConsoleAuthorize (request) {
    const operation = operationOf(request)
    if (await runtime.authorize(request, operation) !== true) throw new PAYWIRE_ERR_CONSOLE_NOT_AUTHORIZED(OPERATION_WORDS[operation])
  })

  app.setErrorHandler(async function paywireConsoleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (isShowable(error) && isClientFailure(error)) {
      const heading = statusOf(error) === 403 ? 'Not allowed' : statusOf(error) === 404 ? 'Not found' : 'That did not work'
      return errorPage(runtime, reply, statusOf(error), heading, error.message, error.code)
    }
    // Fastify's own client errors (a body too large, a bad content type) keep their status, without internals.
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return errorPage(runtime, reply, error.statusCode, 'That did not work', 'The request could not be read. Go back and try again.', error.code ?? 'FST_ERR')
    }
    request.log.error({ err: error }, 'paywire-console: a page failed')
    const unavailable = statusOf(error) === 503
    return errorPage(runtime, reply, unavailable ? 503 : 500, 'Something went wrong',
      unavailable ? 'The payment storage did not answer. Try again in a moment.' : 'An unexpected error occurred; it has been logged. Nothing more was done.',
      isShowable(error) ? error.code : 'PAYWIRE_ERR_INTERNAL')
  })

  app.setNotFoundHandler(async function paywireConsoleNotFound (_request, reply) {
    return errorPage(runtime, reply, 404, 'Not found', 'The console has no page at this address.', 'PAYWIRE_ERR_ROUTE_NOT_FOUND')
  })

  app.get('/', { config: { paywireConsole: 'view' } }, async (request, reply) => await listPage(runtime, request, reply))

  app.get<{ Params: { id: string } }>('/payments/:id', { config: { paywireConsole: 'view' } }, async (request, reply) => {
    const view = await viewOf(runtime, await findPayment(runtime, request.params.id))
    const title = `Payment ${view.payment.number}`
    // The CSRF cookie is set with the first page, so the confirmation forms have it.
    runtime.csrf.tokenFor(request, reply)
    return sendPage(reply, 200, { title, home: runtime.home, body: paymentBody(runtime, view) })
  })

  app.get('/payments/:id/:operation', { config: { paywireConsole: 'operation' } },
    async (request, reply) => await confirmPage(runtime, request as ConsoleRequest, reply))
  app.post('/payments/:id/:operation', { config: { paywireConsole: 'operation' } },
    async (request, reply) => await runOperation(runtime, request as ConsoleRequest, reply))
}
