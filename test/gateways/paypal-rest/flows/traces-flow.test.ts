/*
 * The spans of a PayPal capture, as an OpenTelemetry SDK registered by the application
 * receives them: gateway.execute per request, each action, each PayPal call, each commit.
 */
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import t from 'tap'
import { ScriptedHttpClient } from '../fixtures/recorders.ts'
import { pay, startShop } from '../fixtures/shop.ts'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const contextManager = new AsyncLocalStorageContextManager().enable()
context.setGlobalContextManager(contextManager)
trace.setGlobalTracerProvider(provider)
t.teardown(async () => {
  await provider.shutdown()
  trace.disable()
  context.disable()
})

function parentOf (span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId
}

/** The span tree under `root`, as "name [attribute]" lines indented by depth, children in start order. */
function tree (spans: ReadableSpan[], root: ReadableSpan, depth = 0): string[] {
  const label = root.name === 'paywire.action'
    ? `paywire.action ${String(root.attributes['paywire.action.name'])}`
    : root.kind === SpanKind.CLIENT ? `${root.name} ${new URL(String(root.attributes['url.full'])).pathname.replace(/PAYID-[A-Z0-9]+/, ':id')}` : root.name
  const children = spans.filter((span) => parentOf(span) === root.spanContext().spanId)
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])
  return [`${'  '.repeat(depth)}${label}`, ...children.flatMap((child) => tree(spans, child, depth + 1))]
}

t.test('a PayPal capture: one gateway.execute per request, actions, PayPal calls and commits beneath it, no secret', async (t) => {
  const http = new ScriptedHttpClient()
  t.teardown(() => http.close())
  const shop = await startShop(t, { http })
  exporter.reset()
  const { done, captureUrl } = await pay(shop, { description: 'Secret mug description' })
  t.equal(done.status, 'captured')
  await shop.app.paywire.events.drain()
  const spans = exporter.getFinishedSpans()
  const dispatches = spans.filter((span) => span.name === 'paywire.event.dispatch')
  t.ok(dispatches.some((span) => span.attributes['paywire.event.type'] === 'payment.captured'), 'the payment.captured delivery has a span')
  t.ok(dispatches.every((span) => parentOf(span) === undefined), 'each delivery is a root: no request\'s trace grows after it ended')

  // (PayPal's webhooks arrive meanwhile: their spans are left aside.)
  const roots = spans.filter((span) => span.name === 'gateway.execute' && span.attributes['paywire.request.type'] === 'Capture')
  t.equal(roots.length, 2, 'the way to PayPal and the return are requests of their own')
  for (const root of roots) {
    t.equal(parentOf(root), undefined, 'without an HTTP server span (no @fastify/otel here), gateway.execute is the root')
    t.equal(root.attributes['paywire.gateway.name'], 'paypal')
    t.equal(root.kind, SpanKind.INTERNAL)
  }
  // The buyer's return: the capture that executes the payment at PayPal.
  const execute = spans.find((span) => span.kind === SpanKind.CLIENT && String(span.attributes['url.full']).endsWith('/execute'))
  t.ok(execute)
  const returnRoot = roots.find((root) => root.spanContext().traceId === execute?.spanContext().traceId) as ReadableSpan
  t.equal(returnRoot.attributes['paywire.request.type'], 'Capture')
  t.equal(returnRoot.attributes['paywire.attempts'], 1)
  const lines = tree(spans, returnRoot)
  t.equal(lines[0], 'gateway.execute')
  t.ok(lines.includes('  paywire.action ExecuteSameRequestWithModelDetailsAction'), 'the first action runs under the request')
  const captureAction = lines.findIndex((line) => line.trim() === 'paywire.action CaptureAction')
  const call = lines.findIndex((line) => line.trim() === 'POST /v1/payments/payment/:id/execute')
  t.ok(captureAction > 0 && call > captureAction, 'the PayPal call is under the capture action')
  t.ok(lines[call]?.startsWith(`${(lines[captureAction] as string).match(/^ */)?.[0]}  `), 'as its direct child')
  t.equal(lines.at(-1), '  paywire.storage.commit', 'the request\'s commit closes it, under gateway.execute')
  t.ok(lines.filter((line) => line.trim() === 'paywire.storage.commit').length >= 2, 'the checkpoint before the call is a commit too')

  t.match(execute?.attributes, {
    'http.request.method': 'POST',
    'url.full': /^http:\/\/127\.0\.0\.1:\d+\/v1\/payments\/payment\/PAYID-[A-Z0-9]+\/execute$/,
    'server.address': '127.0.0.1',
    'server.port': Number,
    'http.response.status_code': 200,
    'paypal.debug_id': /^[0-9a-f]{13}$/,
    'paywire.provider': 'PayPal'
  })
  t.equal(execute?.status.code, SpanStatusCode.UNSET)
  const commit = spans.find((span) => span.name === 'paywire.storage.commit' && parentOf(span) === returnRoot.spanContext().spanId)
  t.match(commit?.attributes, { 'paywire.storage.backend': 'MemoryStorageBackend', 'paywire.storage.writes': Number, 'paywire.storage.checkpoint': false })

  const text = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })))
  const bearer = [...new Set(http.requests.flatMap((request) => /^Bearer (.+)$/.exec(request.headers?.authorization ?? '')?.[1] ?? []))]
  for (const secret of [shop.client.clientSecret, ...bearer, new URL(captureUrl).pathname.split('/').pop() as string, 'Secret mug description']) {
    t.notMatch(text, secret, `${secret.slice(0, 8)}… is in no span`)
  }
})

t.test('PayPal failing marks the call spans and the action as errors, with PayPal\'s debug id', async (t) => {
  const shop = await startShop(t)
  exporter.reset()
  shop.paypal.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: '/v1/payments/payment', times: 10 })
  const checkoutPage = await fetch(`${shop.origin}/checkout`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', redirect: 'manual' })
  const capture = await fetch(String(checkoutPage.headers.get('location')), { redirect: 'manual', headers: { accept: 'application/json' } })
  await capture.arrayBuffer()
  const spans = exporter.getFinishedSpans()
  t.equal(capture.status, 502)
  const refused = spans.filter((span) => span.kind === SpanKind.CLIENT && span.attributes['http.response.status_code'] === 503)
  t.equal(refused.length, 3, 'each attempt (http.Retry) is a span')
  t.same(refused.map((span) => span.attributes['http.request.resend_count']), [undefined, 1, 2])
  for (const span of refused) t.match(span, { status: { code: SpanStatusCode.ERROR }, attributes: { 'error.type': '503', 'paypal.debug_id': String } })
  const failedAction = spans.find((span) => span.name === 'paywire.action' && span.attributes['paywire.action.name'] === 'CaptureAction')
  t.match(failedAction, { status: { code: SpanStatusCode.ERROR }, attributes: { 'error.type': 'PAYWIRE_ERR_PROVIDER' } })
  t.equal(failedAction?.events[0]?.name, 'exception')
})
