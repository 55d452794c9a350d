/*
 * One line per request at info, saying what happened ("capture: buyer sent to the payment
 * provider"), instead of Fastify's "incoming request" / "request completed" pair. Token hashes
 * never appear: a payment route is named by its kind, not by its path.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/** What a request was, in the shop's terms. */
function stepOf (request: FastifyRequest): { step: string, gateway?: string } {
  const path = request.url.split('?')[0] as string
  const webhook = /^\/payment\/notify\/unsafe\/([^/]+)$/.exec(path)
  if (webhook !== null) return { step: 'webhook', gateway: decodeURIComponent(webhook[1] as string) }
  const token = /^\/payment\/([a-z]+)\//.exec(path)
  if (token !== null) return { step: token[1] as string }
  if (path === '/checkout' && request.method === 'POST') return { step: 'checkout' }
  if (path === '/' || path === '/checkout') return { step: 'checkout page' }
  if (path === '/graphql') return { step: 'graphql' }
  return { step: `${request.method} ${path.slice(0, 100)}` }
}

/** Where a redirect sends the buyer: the shop is the address asked for, or its public one (baseUrl). */
function destination (request: FastifyRequest, location: string, shopHost: string | undefined): string {
  const target = new URL(location, `${request.protocol}://${request.host}`)
  if (target.host !== request.host && target.host !== shopHost) return 'the payment provider'
  return target.pathname.startsWith('/payment/') ? `the ${target.pathname.split('/')[2] ?? ''} page` : 'the shop'
}

function outcome (step: string, request: FastifyRequest, reply: FastifyReply, shopHost: string | undefined): string {
  const status = reply.statusCode
  const location = reply.getHeader('location')
  if (status >= 300 && status < 400 && typeof location === 'string') {
    return step === 'checkout' ? 'payment stored, buyer sent to pay' : `buyer sent to ${destination(request, location, shopHost)}`
  }
  if (status === 429) return 'refused: too many attempts'
  if (status === 404) return 'not found'
  if (status === 409) return step === 'webhook' ? 'payment busy, the provider sends it again' : 'payment busy, the buyer waits'
  if (status >= 500) return `failed (${status})`
  if (status >= 400) return step === 'checkout' ? `form refused (${status})` : `refused (${status})`
  if (step === 'webhook') return 'handled'
  if (step === 'done') return 'result shown'
  return step === 'checkout page' ? 'shown' : `answered (${status})`
}

/** Fastify's request lines, replaced: nothing when a request arrives, one line when it is answered. */
export class DemoLogController extends LogController {
  readonly #shopHost: string | undefined

  /** `baseUrl`: the shop's public origin, when it is not the address requests arrive at. */
  constructor (baseUrl?: string) {
    super()
    // A malformed one is left to the paywire plugin, which refuses it by name.
    this.#shopHost = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl).host : undefined
  }

  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // A reply that failed to send keeps Fastify's own error line.
    if (error !== null && error !== undefined) return super.requestCompleted(error, request, reply)
    const { step, gateway } = stepOf(request)
    request.log.info({ step, gateway, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      `${step}${gateway === undefined ? '' : ` (${gateway})`}: ${outcome(step, request, reply, this.#shopHost)}`)
  }
}
