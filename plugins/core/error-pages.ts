import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { GetHumanStatus, errorCodes, kindOf, type ErrorKind, type Paywire } from './engine/index.ts'
import { paywireErrorHandler } from './http.ts'
import { DEFAULT_RETRY_AFTER_SECONDS, prefersHtml, type BuyerPages, type ChargeState, type ErrorPageContent } from './pages.ts'

/**
 * Another request is running this payment: the buyer waits on a refreshing page. Kept for
 * applications that read it; the routes decide by the error's kind (`busy`), which covers these.
 */
export const BUSY_CODES: ReadonlySet<string> = new Set(['PAYWIRE_ERR_PAYMENT_BUSY'])

function isBusy (error: unknown, code: string): boolean {
  return BUSY_CODES.has(code) || kindOf(error) === 'busy'
}

const INVALID_LINK_CODES = new Set([
  'PAYWIRE_ERR_VALIDATION', 'PAYWIRE_ERR_TOKEN_PATH_MISMATCH', 'PAYWIRE_ERR_ROUTE_NOT_FOUND', 'PAYWIRE_ERR_TOKEN_PARAMETER_MISSING',
  'PAYWIRE_ERR_UNKNOWN_GATEWAY', 'PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED', 'PAYWIRE_ERR_INVALID_BODY'
])

/** Routes whose failure the buyer may simply try again, with the same link. */
const RETRYABLE_KINDS = new Set(['capture', 'authorize', 'payout'])

const CHARGED = new Set(['captured', 'authorized', 'payedout', 'refunded'])
const NOT_CHARGED = new Set(['new', 'failed', 'canceled', 'expired'])

export interface ErrorPagesOptions {
  paywire: Paywire
  pages: BuyerPages
  /** The URL the buyer used, base path included. */
  publicUrl: (request: FastifyRequest) => string
}

interface PaymentState {
  charge: ChargeState
  /** The token still exists: its link can be used again. */
  tokenAlive: boolean
  afterUrl: string | null
}

const UNKNOWN_STATE: PaymentState = { charge: 'unknown', tokenAlive: false, afterUrl: null }

/**
 * What the payment behind the request's token says about money after a failure. Any
 * failure to find out (the store is down too) is "unknown": the page never guesses.
 */
async function paymentState (paywire: Paywire, request: FastifyRequest, error: FastifyError): Promise<PaymentState | undefined> {
  const hash = (request.params as Record<string, unknown> | undefined)?.token
  if (typeof hash !== 'string') return undefined
  // The storage failed the request: asking it again would hold the page for another command
  // timeout, past the bound within which a 503 is promised (docs/consistency.md).
  if (kindOf(error) === 'unavailable') return UNKNOWN_STATE
  try {
    const token = await paywire.getTokenStorage().find(hash)
    if (token === null) return undefined
    const status = new GetHumanStatus(token)
    await paywire.getGateway(token.gatewayName).execute(status)
    const charge: ChargeState = CHARGED.has(status.value) ? 'charged' : NOT_CHARGED.has(status.value) ? 'not-charged' : 'unknown'
    return { charge, tokenAlive: true, afterUrl: token.afterUrl }
  } catch (error) {
    request.log.warn({ err: error }, 'paywire: the payment status could not be read for the error page')
    return UNKNOWN_STATE
  }
}

/** The route kind ("capture") of a payment route URL. */
function routeKind (request: FastifyRequest): string | undefined {
  return /\/([a-z]+)\/[^/]+$/.exec(request.url.split('?')[0] as string)?.[1]
}

const PROVIDER_FAILED = {
  heading: 'The payment provider could not complete your payment',
  message: 'The provider refused or did not answer. Reload this page in a moment to try again: reloading never charges you twice, so please do not start a new payment.'
}

/** The provider's answer in the buyer's words, by what it means. */
const PROVIDER_PAGES: Readonly<Partial<Record<ErrorKind, { heading: string, message: string }>>> = {
  instrument_declined: {
    heading: 'Your payment method was declined',
    message: 'Try again and choose another card or funding source at the payment provider.'
  },
  payer_action_required: {
    heading: 'The payment provider needs you to confirm this payment',
    message: 'Try again to go back to the payment provider and complete the step it asks for.'
  },
  provider_refused: PROVIDER_FAILED,
  provider_unavailable: PROVIDER_FAILED
}

async function pageContent (error: FastifyError, statusCode: number, code: string, request: FastifyRequest, options: ErrorPagesOptions): Promise<ErrorPageContent> {
  const kind = kindOf(error)
  if (kind === 'gone') {
    return {
      heading: 'This payment link was already used',
      message: 'This step is done. If you completed your payment, the shop will confirm it; otherwise, please start again from the shop.',
      code
    }
  }
  if (INVALID_LINK_CODES.has(code)) {
    return { heading: 'This payment link is not valid', message: 'Please check the link, or start again from the shop.', code }
  }
  if (kind === 'not_found') {
    return {
      heading: 'This payment link is no longer valid',
      message: 'It has expired or was already used. If you completed your payment, the shop will confirm it; otherwise, please start again from the shop.',
      code
    }
  }
  const provider = kind === undefined ? undefined : PROVIDER_PAGES[kind]
  // Whatever its status (a declined card is a 402), the provider's answer needs what the payment says about money.
  const state = statusCode >= 409 || provider !== undefined ? await paymentState(options.paywire, request, error) : undefined
  const path = options.publicUrl(request).split('?')[0] as string
  const retryUrl = state?.tokenAlive === true && state.charge === 'not-charged' && RETRYABLE_KINDS.has(routeKind(request) ?? '') ? path : undefined
  const doneUrl = state?.afterUrl !== null && state?.afterUrl !== undefined && state.charge !== 'not-charged' ? state.afterUrl : undefined
  const charge = state?.charge ?? (statusCode >= 500 ? 'unknown' : undefined)
  if (provider !== undefined) return { ...provider, charge, retryUrl, doneUrl, code }
  if (statusCode >= 500) {
    return { heading: 'Something went wrong', message: 'We could not complete this step because of a problem on our side.', charge, retryUrl, doneUrl, code }
  }
  return { heading: 'This request could not be completed', message: error.message, charge, doneUrl, code }
}

function retryAfterSeconds (error: FastifyError, reply: FastifyReply): number {
  const given = Number((error as { retryAfter?: unknown }).retryAfter ?? reply.getHeader('retry-after'))
  return Number.isInteger(given) && given > 0 && given <= 60 ? given : DEFAULT_RETRY_AFTER_SECONDS
}

/**
 * The payment routes' error handler: coded JSON for API clients (paywireErrorHandler), a
 * page a person understands when the browser asks for HTML.
 */
export function buyerErrorHandler (options: ErrorPagesOptions) {
  return async function paywireBuyerErrorHandler (this: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const code = typeof error.code === 'string' ? error.code : 'PAYWIRE_ERR_INTERNAL'
    if (isBusy(error, code)) reply.header('retry-after', String(retryAfterSeconds(error, reply)))
    if (!prefersHtml(request)) return paywireErrorHandler.call(this, error, request, reply)
    const statusCode = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500
    if (statusCode >= 500) request.log.error({ err: error }, 'payment route failed')
    reply.code(statusCode).type('text/html; charset=utf-8').header('cache-control', 'no-store')
    if (isBusy(error, code)) return reply.send(await options.pages.busy(options.publicUrl(request), retryAfterSeconds(error, reply)))
    return reply.send(await options.pages.error(await pageContent(error, statusCode, code, request, options)))
  }
}

export function routeNotFound (request: FastifyRequest): Error {
  return new errorCodes.PAYWIRE_ERR_ROUTE_NOT_FOUND(request.method, request.url.split('?')[0] as string)
}
