/*
 * What an application sees of Stripe calls: CLIENT spans and debug lines per exchange (the
 * SDK's retries numbered), Stripe-Version and idempotency keys on the wire, and nowhere a key, a
 * webhook secret, a request body or payer data.
 */
import { context, trace, SpanKind } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import Stripe from 'stripe'
import t from 'tap'
import { captureLog } from '../../../helpers/log-capture.ts'
import { TestHttpClient } from '../fixtures/http.ts'
import { pay, startStripeShop } from '../fixtures/shop.ts'

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(provider)
t.teardown(async () => {
  await provider.shutdown()
  trace.disable()
  context.disable()
})

t.test('each Stripe exchange is a CLIENT span and a debug line; retries are numbered; no secret, body or payer data anywhere', async (t) => {
  const log = captureLog()
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http, fastify: { logger: { level: 'debug', stream: log.stream } }, gateway: { max_network_retries: 1 } })
  shop.stripe.simulator.faults.inject({ kind: 'error', status: 500, method: 'POST', path: '/v1/checkout/sessions' })
  exporter.reset()
  const paid = await pay(shop, { description: 'Unmistakable teapot 7f3a', clientEmail: 'payer.7f3a@example.com' })
  t.equal(paid.status, 'captured')
  await shop.app.paywire.events.drain()

  const calls = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CLIENT)
  const creates = calls.filter((span) => String(span.attributes['url.full']).endsWith('/v1/checkout/sessions'))
  t.same(creates.map((span) => [span.name, span.attributes['http.response.status_code'], span.attributes['http.request.resend_count']]), [['POST', 500, undefined], ['POST', 200, 1]])
  t.ok(creates.every((span) => span.attributes['paywire.provider'] === 'Stripe' && /^req_/.test(String(span.attributes['stripe.debug_id']))), 'Stripe\'s Request-Id on each span')
  t.ok(calls.some((span) => String(span.attributes['url.full']).includes('/v1/payment_intents/')), 'the reads too')

  const lines = log.records().filter((record) => record.msg === 'paywire: Stripe call')
  t.match(lines.find((line) => (line.provider as { attempt: number }).attempt === 2), { provider: { name: 'Stripe', method: 'POST', path: '/v1/checkout/sessions', status: 200, debugId: /^req_/ } })
  t.ok(lines.every((line) => !String((line.provider as { path: string }).path).includes('?')), 'paths without their query')

  const everything = `${log.text()}${JSON.stringify(exporter.getFinishedSpans().map((span) => span.attributes))}`
  for (const secret of [shop.key, shop.endpoint?.secret as string, 'Unmistakable teapot', 'payer.7f3a', 'Bearer']) t.notOk(everything.includes(secret), `never logged: ${secret.slice(0, 12)}…`)
})

t.test('on the wire: Stripe-Version is the pinned one, every POST carries Paywire\'s key, GETs none', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  await pay(shop)
  t.ok(http.sent.every((sent) => sent.headers['Stripe-Version'] === Stripe.API_VERSION), 'the SDK\'s version by default')
  t.ok(http.sent.every((sent) => sent.headers.Authorization === `Bearer ${shop.key}`))
  t.ok(http.sent.filter((sent) => sent.method === 'POST').every((sent) => /^[\w-]+:checkout_session:1$/.test(sent.idempotencyKey as string)))
  t.ok(http.sent.filter((sent) => sent.method === 'GET').every((sent) => sent.idempotencyKey === undefined))

  const pinned = new TestHttpClient(t)
  const older = await startStripeShop(t, { http: pinned, gateway: { api_version: '2025-04-30.basil' } })
  await pay(older)
  t.ok(pinned.sent.length > 0 && pinned.sent.every((sent) => sent.headers['Stripe-Version'] === '2025-04-30.basil'), 'api_version pins it')
})
