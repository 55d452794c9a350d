import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import {
  HttpRedirect, Logger, NullLogger, SPAN_EVENT_DISPATCH, observeProviderCall, traceEventDispatch, type ProviderCall
} from '../../../../../plugins/core/engine/index.ts'
import { traced } from '../../../../../plugins/core/engine/observability/telemetry.ts'

class LinesLogger extends Logger {
  readonly lines: Array<[string, unknown, string | undefined]> = []
  debug = (fields: unknown, message?: string) => { this.lines.push(['debug', fields, message]) }
  info = this.debug
  warn = this.debug
  error = this.debug
}

const call: ProviderCall = { provider: 'Acme', method: 'POST', url: 'https://api.acme.example/v1/charges?secret=<SECRET>', path: '/v1/charges', attempt: 1, debugIdHeader: 'acme-debug-id' }
const answer = { statusCode: 201, headers: { 'acme-debug-id': 'dbg-1' }, body: '{}' }

// Before any tracer provider is registered: the API's no-op, and the helpers still do their work.
t.test('without a tracer provider, helpers run their work and provider calls are still logged', async (t) => {
  t.equal(await traceEventDispatch('payment.captured', 'evt-1', async () => 'handled'), 'handled')
  const logger = new LinesLogger()
  t.equal(await observeProviderCall(logger, call, async () => answer), answer)
  t.match(logger.lines, [['debug', { provider: { name: 'Acme', method: 'POST', path: '/v1/charges', status: 201, debugId: 'dbg-1', attempt: 1, ms: Number } }, 'paywire: Acme call']])
  await t.rejects(observeProviderCall(logger, call, async () => { throw new TypeError('socket hang up') }), { message: 'socket hang up' })
  t.match(logger.lines[1], ['debug', { provider: { error: 'TypeError', attempt: 1 } }, 'paywire: Acme call failed without an answer'])
  const silent = new NullLogger()
  t.equal(await observeProviderCall(silent, { ...call, log: false }, async () => answer), answer, 'a logger that keeps no debug lines is not written to')
})

t.test('with a tracer provider', async (t) => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
  t.teardown(async () => {
    await provider.shutdown()
    trace.disable()
    context.disable()
  })

  t.test('paywire.event.dispatch: one span per event handed to handlers, an error status when one throws', async (t) => {
    exporter.reset()
    await traceEventDispatch('payment.captured', 'evt-1', async () => {})
    await t.rejects(traceEventDispatch('payment.refunded', 'evt-2', async () => { throw Object.assign(new Error('handler failed for payer@example.com?password=hunter2'), { code: 'SHOP_DOWN' }) }))
    const [ok, failed] = exporter.getFinishedSpans()
    t.match(ok, { name: SPAN_EVENT_DISPATCH, kind: SpanKind.INTERNAL, attributes: { 'paywire.event.type': 'payment.captured', 'paywire.event.id': 'evt-1' }, status: { code: SpanStatusCode.UNSET } })
    t.match(failed, { name: SPAN_EVENT_DISPATCH, attributes: { 'paywire.event.id': 'evt-2', 'error.type': 'SHOP_DOWN' }, status: { code: SpanStatusCode.ERROR } })
    t.notMatch(JSON.stringify([failed?.status, failed?.events]), 'hunter2', 'exception messages go through the redaction layer')
  })

  t.test('a thrown reply is an answer, not an error; non-errors are recorded by their type', async (t) => {
    exporter.reset()
    await t.rejects(traced('paywire.test', {}, undefined, async () => { throw new HttpRedirect('https://shop.example/thanks') }))
    // eslint-disable-next-line no-throw-literal -- code Paywire runs may throw anything
    await t.rejects(traced('paywire.test', {}, undefined, async () => { throw 'a string' }))
    const [reply, thrown] = exporter.getFinishedSpans()
    t.match(reply, { attributes: { 'paywire.reply': 'HttpRedirect' }, status: { code: SpanStatusCode.UNSET } })
    t.match(thrown, { attributes: { 'error.type': 'Error' }, status: { code: SpanStatusCode.ERROR, message: 'a string' } })
  })

  t.test('a provider call span: HTTP semantic attributes, the URL without its query, the default port', async (t) => {
    exporter.reset()
    await observeProviderCall(new NullLogger(), { ...call, attempt: 2 }, async () => answer)
    await t.rejects(observeProviderCall(new NullLogger(), { ...call, url: 'http://api.acme.example/v1/charges' }, async () => { throw new Error('ECONNRESET') }))
    const [answered, failed] = exporter.getFinishedSpans()
    t.match(answered, {
      name: 'POST',
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': 'POST', 'url.full': 'https://api.acme.example/v1/charges', 'server.address': 'api.acme.example', 'server.port': 443, 'http.request.resend_count': 1, 'http.response.status_code': 201, 'acme.debug_id': 'dbg-1' }
    })
    t.notMatch(JSON.stringify(answered?.attributes), '<SECRET>')
    t.match(failed, { attributes: { 'server.port': 80, 'error.type': 'Error' }, status: { code: SpanStatusCode.ERROR } })
  })
})
