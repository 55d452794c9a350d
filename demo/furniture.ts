/*
 * Everything around the shop's Paywire code: the form parser, rate limits, the checkout page on
 * GET / and GET /checkout, and an HTML page for every answer a browser gets (a wrong address,
 * too many attempts, a failure), coded JSON for API clients.
 */
import formbody from '@fastify/formbody'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { prefersHtml } from 'paywire'
import { formValues } from './checkout-form.ts'
import { checkoutPage, messagePage } from './pages.ts'
import type { DemoShopOptions } from './options.ts'
import { addRateLimits } from './rate-limits.ts'

export const INTERNAL_MESSAGE = 'Something went wrong on our side; nothing was charged. Please try again.'

function html (reply: FastifyReply, statusCode: number, page: string): FastifyReply {
  return reply.code(statusCode).type('text/html; charset=utf-8').send(page)
}

/**
 * The shop's own error answers: client mistakes keep their message, anything else is logged
 * and answered without internals (a Redis or script error never reaches the page).
 */
function demoErrorHandler (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500
  if (statusCode >= 500) request.log.error({ err: error }, 'demo shop: request failed')
  const message = statusCode >= 500 ? INTERNAL_MESSAGE : error.message
  if (!prefersHtml(request)) return reply.code(statusCode).send({ statusCode, code: statusCode >= 500 ? 'DEMO_ERR_INTERNAL' : error.code ?? 'DEMO_ERR_REQUEST', message })
  if (statusCode === 429) return html(reply, 429, messagePage('Too many attempts', message))
  // The form again, as the buyer filled it, to try again.
  const values = request.method === 'POST' && request.url === '/checkout' ? formValues(request.body) : undefined
  return html(reply, statusCode, checkoutPage(this.paywire.getGatewayNames(), message, values))
}

export async function addDemoFurniture (app: FastifyInstance, options: DemoShopOptions): Promise<void> {
  app.setErrorHandler(demoErrorHandler)
  app.setNotFoundHandler(async function demoNotFound (request, reply) {
    if (!prefersHtml(request)) return reply.code(404).send({ statusCode: 404, code: 'DEMO_ERR_NOT_FOUND', message: `No page at ${request.method} ${request.url.split('?')[0] ?? ''}.` })
    return html(reply, 404, messagePage('Page not found', 'There is no page at this address. The shop is one click away.'))
  })
  // Before the routes: its onRoute hook covers those registered after it, Paywire's too.
  if (options.rateLimits !== false) await addRateLimits(app, options.rateLimits)
  await app.register(formbody)
  const showCheckoutPage = async (_request: FastifyRequest, reply: FastifyReply) => html(reply, 200, checkoutPage(app.paywire.getGatewayNames()))
  app.get('/', showCheckoutPage)
  // A reload or a bookmark of the form's address gets the form, not an error.
  app.get('/checkout', showCheckoutPage)
}
