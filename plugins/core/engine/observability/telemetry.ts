import { context, SpanKind, SpanStatusCode, trace, type Span, type SpanOptions } from '@opentelemetry/api'
import type { HttpResponse as HttpClientResponse } from '../http-client.ts'
import type { Logger } from './logger.ts'
import { redactedError, redactText } from './redact.ts'
import { Reply } from '../requests/replies.ts'

/*
 * Paywire's spans, through @opentelemetry/api only: without an SDK registered by the
 * application they are the API's no-op, and Paywire builds no attributes for them (every
 * helper asks span.isRecording() first). docs/observability.md lists them.
 */

/** The instrumentation scope of Paywire's spans. */
export const PAYWIRE_TRACER_NAME = 'paywire'

const tracer = trace.getTracer(PAYWIRE_TRACER_NAME)
const INTERNAL: SpanOptions = Object.freeze({ kind: SpanKind.INTERNAL })
/*
 * A delivery is work of its own, whichever request's commit happened to wake the dispatcher (or
 * another instance's, or a poll): a root span, so no request's trace grows a child after it ended.
 */
const DISPATCH: SpanOptions = Object.freeze({ kind: SpanKind.INTERNAL, root: true })
const CLIENT: SpanOptions = Object.freeze({ kind: SpanKind.CLIENT })

/** Span names, stable API for dashboards and tests. */
export const SPAN_GATEWAY_EXECUTE = 'gateway.execute'
export const SPAN_ACTION = 'paywire.action'
export const SPAN_STORAGE_COMMIT = 'paywire.storage.commit'
export const SPAN_EVENT_DISPATCH = 'paywire.event.dispatch'

/**
 * Runs `run` in a child span of the active one; `describe` sets its attributes, and is only
 * called when the span records. A thrown error ends the span with an error status (its
 * redacted message); a thrown Reply (a redirect, a page) is an answer, not an error.
 */
export async function traced<T> (name: string, options: SpanOptions, describe: ((span: Span) => void) | undefined,
  run: () => Promise<T>): Promise<T> {
  const span = tracer.startSpan(name, options)
  if (!span.isRecording()) return await run()
  describe?.(span)
  return await runInSpan(span, run)
}

/** Runs `run` with `span` active, and ends it (with an error status if `run` throws). */
export async function runInSpan<T> (span: Span, run: () => Promise<T>): Promise<T> {
  try {
    return await context.with(trace.setSpan(context.active(), span), run)
  } catch (thrown) {
    failSpan(span, thrown)
    throw thrown
  } finally {
    span.end()
  }
}

export function failSpan (span: Span, thrown: unknown): void {
  if (!span.isRecording()) return
  if (thrown instanceof Reply) {
    span.setAttribute('paywire.reply', thrown.constructor.name)
    return
  }
  const error = redactedError(thrown)
  const code = (thrown as { code?: unknown } | null)?.code
  span.setAttribute('error.type', typeof code === 'string' ? code : error.name)
  span.recordException(error)
  span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
}

/**
 * `gateway.execute`: one top-level request to a gateway (nested executes are its actions).
 * Under ExclusiveExecutor it covers every attempt and the commit; `request` is then set by
 * describeGatewayRequest() once the attempt made it. Undefined when not recording: the
 * caller then runs its work as it is (runInSpan() otherwise).
 */
export function startGatewayExecuteSpan (gateway: string | undefined, request: unknown): Span | undefined {
  const span = tracer.startSpan(SPAN_GATEWAY_EXECUTE, INTERNAL)
  if (!span.isRecording()) return undefined
  if (gateway !== undefined) span.setAttribute('paywire.gateway.name', gateway)
  if (request !== undefined) span.setAttribute('paywire.request.type', typeName(request))
  return span
}

/** Names the request of the active `gateway.execute` span, and which attempt this is (ExclusiveExecutor). */
export function describeGatewayRequest (request: unknown, attempt: number): void {
  const span = trace.getActiveSpan()
  if (span === undefined || !span.isRecording()) return
  span.setAttributes({ 'paywire.request.type': typeName(request), 'paywire.attempts': attempt })
}

/** `paywire.action`: one action executing one request; undefined when not recording (see startGatewayExecuteSpan). */
export function startActionSpan (gateway: string | undefined, action: object, request: unknown, depth: number): Span | undefined {
  const span = tracer.startSpan(SPAN_ACTION, INTERNAL)
  if (!span.isRecording()) return undefined
  if (gateway !== undefined) span.setAttribute('paywire.gateway.name', gateway)
  span.setAttributes({ 'paywire.action.name': typeName(action), 'paywire.request.type': typeName(request), 'paywire.action.depth': depth })
  return span
}

/** `paywire.storage.commit`: one UnitOfWork commit (or checkpoint); undefined when not recording. */
export function startStorageCommitSpan (backend: object, writes: number, checkpoint: boolean): Span | undefined {
  const span = tracer.startSpan(SPAN_STORAGE_COMMIT, INTERNAL)
  if (!span.isRecording()) return undefined
  span.setAttributes({ 'paywire.storage.backend': typeName(backend), 'paywire.storage.writes': writes, 'paywire.storage.checkpoint': checkpoint })
  return span
}

/**
 * `paywire.event.dispatch`: one event handed to the application's handlers. For the event
 * dispatcher: `await traceEventDispatch('payment.captured', event.id, () => handler(event))`.
 */
export function traceEventDispatch<T> (eventType: string, eventId: string, run: () => Promise<T>): Promise<T> {
  return traced(SPAN_EVENT_DISPATCH, DISPATCH, (span) => {
    span.setAttributes({ 'paywire.event.type': eventType, 'paywire.event.id': eventId })
  }, run)
}

export interface ProviderCall {
  /** As people write it (PayPal): names the log line, and, lowercased, the debug id attribute (paypal.debug_id). */
  provider: string
  method: string
  /** The full URL: spans get it redacted (no credentials, secret query values or token hashes). */
  url: string
  /** The path alone, for the log line. */
  path: string
  /** 1 for the first try. */
  attempt: number
  /** The answer header carrying the provider's id for this exchange (paypal-debug-id). */
  debugIdHeader?: string
  /** False when the gateway logs its calls its own way (PayPal's log.LogEnabled): the span stays. */
  log?: boolean
}

/**
 * One HTTP exchange with a provider, observed: a CLIENT span with HTTP semantic attributes
 * and the provider's debug id, and a debug line (method, path, status, duration, debug id)
 * through Paywire's redacting logger. A gateway's API calls it around each HTTP send.
 */
export async function observeProviderCall (logger: Logger, call: ProviderCall, send: () => Promise<HttpClientResponse>): Promise<HttpClientResponse> {
  const span = tracer.startSpan(call.method, CLIENT)
  const recording = span.isRecording()
  if (recording) describeHttpCall(span, call)
  const started = performance.now()
  const log = call.log !== false && logger.isLevelEnabled?.('debug') !== false
  try {
    const response = recording ? await context.with(trace.setSpan(context.active(), span), send) : await send()
    const debugId = call.debugIdHeader === undefined ? undefined : response.headers[call.debugIdHeader]
    if (recording) {
      span.setAttribute('http.response.status_code', response.statusCode)
      if (debugId !== undefined) span.setAttribute(`${call.provider.toLowerCase()}.debug_id`, debugId)
      if (response.statusCode >= 400) {
        span.setAttribute('error.type', String(response.statusCode))
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
    }
    if (log) {
      logger.debug({ provider: { name: call.provider, method: call.method, path: call.path, status: response.statusCode, ms: elapsed(started), debugId, attempt: call.attempt } },
        `paywire: ${call.provider} call`)
    }
    return response
  } catch (thrown) {
    failSpan(span, thrown)
    if (log) {
      logger.debug({ provider: { name: call.provider, method: call.method, path: call.path, error: (thrown as Error)?.name, ms: elapsed(started), attempt: call.attempt } },
        `paywire: ${call.provider} call failed without an answer`)
    }
    throw thrown
  } finally {
    span.end()
  }
}

function describeHttpCall (span: Span, call: ProviderCall): void {
  const url = new URL(call.url)
  span.setAttributes({
    'http.request.method': call.method,
    'url.full': redactText(`${url.origin}${url.pathname}`),
    'server.address': url.hostname,
    'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
    'paywire.provider': call.provider
  })
  if (call.attempt > 1) span.setAttribute('http.request.resend_count', call.attempt - 1)
}

function elapsed (started: number): number {
  return Math.round(performance.now() - started)
}

function typeName (value: unknown): string {
  return (value as { constructor?: { name?: string } } | null)?.constructor?.name || typeof value
}
