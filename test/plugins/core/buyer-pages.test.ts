/*
 * The buyer's view of the payment routes: a page a person understands on every answer when
 * the browser asks for HTML, security headers on them, and HEAD never running a gateway.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import helmet from '@fastify/helmet'
import Fastify from 'fastify'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { PAGE_CSP, Payment, errorCodes, paywire, providerError } from '../../../plugins/core/index.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }

t.test('an unknown or expired link is a page with a way back to the shop; API clients keep JSON', async (t) => {
  const { app } = await buildTestApp({ pages: { shopUrl: 'https://shop.example/cart' } })
  t.teardown(() => app.close())
  for (const kind of ['capture', 'done', 'refund']) {
    const page = await app.inject({ url: `/payment/${kind}/${'a'.repeat(43)}`, headers: BROWSER })
    t.equal(page.statusCode, 404)
    t.match(page.headers['content-type'], /^text\/html/)
    t.match(page.body, '<h1>This payment link is no longer valid</h1>')
    t.match(page.body, '<a class="shop" href="https://shop.example/cart">Back to the shop</a>')
    t.match(page.body, 'PAYWIRE_ERR_TOKEN_NOT_FOUND', 'a reference the shop\'s support can use')
    t.equal(page.headers['cache-control'], 'no-store')
  }
  const malformed = await app.inject({ url: '/payment/capture/short', headers: BROWSER })
  t.equal(malformed.statusCode, 400)
  t.match(malformed.body, '<h1>This payment link is not valid</h1>')
  const api = await app.inject({ url: `/payment/capture/${'a'.repeat(43)}`, headers: { accept: 'application/json' } })
  t.equal(api.json().code, 'PAYWIRE_ERR_TOKEN_NOT_FOUND')
})

t.test('a provider failure says nothing was charged and offers to try again', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  script.error = providerError({ provider: 'Acme', providerCode: 'INTERNAL_SERVICE_ERROR', message: 'boom' })
  const page = await app.inject({ url: `${pathOf(token.targetUrl)}?PayerID=P1`, headers: BROWSER })
  t.equal(page.statusCode, 502)
  t.match(page.body, '<h1>The payment provider could not complete your payment</h1>')
  t.match(page.body, 'Nothing was charged.')
  t.match(page.body, 'Reload this page in a moment to try again: reloading never charges you twice', 'how to try again')
  t.match(page.body, `<a class="retry" href="${new URL(token.targetUrl).pathname}">Try again</a>`)
  const retry = await app.inject({ url: new URL(token.targetUrl).pathname, headers: BROWSER })
  t.equal(retry.statusCode, 302, 'trying again works')
  t.equal(retry.headers.location, token.afterUrl)

  const json = await app.inject({ url: `/payment/capture/${'b'.repeat(43)}` })
  t.equal(json.json().code, 'PAYWIRE_ERR_TOKEN_NOT_FOUND', 'API clients still get JSON')
})

t.test('a failure after the payment went through says so and links to the result, not to a second payment', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { details: { status: 'capture' } })
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  script.error = new Error('disk full at /var/lib/secret-path')
  const page = await app.inject({ url: pathOf(token.targetUrl), headers: BROWSER })
  t.equal(page.statusCode, 500)
  t.match(page.body, '<h1>Something went wrong</h1>')
  t.match(page.body, 'Your payment went through: you were charged once.')
  t.match(page.body, `<a class="done" href="${token.afterUrl}">See your payment</a>`)
  t.notMatch(page.body, 'class="retry"')
  t.notMatch(page.body, 'secret-path', 'no internals')

  const pending = await storedPayment(app, { details: { status: 'authorize' } })
  const pendingToken = await app.paywire.getTokenFactory().createCaptureToken('scripted', pending, 'done')
  script.error = new Error('gateway exploded')
  const unknown = await app.inject({ url: pathOf(pendingToken.targetUrl), headers: BROWSER })
  t.match(unknown.body, 'We could not confirm whether you were charged.', 'a status that says neither')
})

t.test('while another request runs the payment, the buyer gets a page that refreshes by itself', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  let release: () => void = () => {}
  script.gate = new Promise<void>((resolve) => { release = resolve })
  const first = app.inject({ url: pathOf(token.targetUrl) })
  while (script.calls.capture !== 1) await new Promise((resolve) => setImmediate(resolve))
  const url = `${pathOf(token.targetUrl)}?PayerID=P1&paymentId=PAY-1`
  const busy = await app.inject({ url, headers: BROWSER })
  t.equal(busy.statusCode, 409)
  t.equal(busy.headers['retry-after'], '2')
  t.match(busy.body, '<h1>Your payment is being processed</h1>')
  t.match(busy.body, `<meta http-equiv="refresh" content="2;url=${url.replace(/&/g, '&amp;')}">`, 'no JavaScript needed')
  t.notMatch(busy.body, '<script')
  const api = await app.inject({ url })
  t.equal(api.json().code, 'PAYWIRE_ERR_PAYMENT_BUSY')
  t.equal(api.headers['retry-after'], '2', 'API clients learn when to retry too')
  release()
  t.equal((await first).statusCode, 302)
})

t.test('PAYWIRE_ERR_PAYMENT_BUSY is a busy page too, honouring its Retry-After', async (t) => {
  const { app } = await buildTestApp({
    configure: (builder) => {
      builder.addGatewayFactoryConfig('offline', {})
    }
  })
  t.teardown(() => app.close())
  app.paywire.addGateway('busy', { factory: 'offline' })
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('busy', payment, 'done')
  const gateway = app.paywire.getGateway('busy')
  gateway.addAction({
    supports: () => true,
    execute: () => { throw Object.assign(new errorCodes.PAYWIRE_ERR_PAYMENT_BUSY(), { retryAfter: 5 }) }
  }, true)
  const page = await app.inject({ url: pathOf(token.targetUrl), headers: BROWSER })
  t.equal(page.statusCode, 409)
  t.equal(page.headers['retry-after'], '5')
  t.match(page.body, '<meta http-equiv="refresh" content="5;')
})

t.test('pages are brandable through template directories', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'paywire-pages-'))
  await writeFile(join(dir, 'done.html'), '<h1 class="brand">{{ heading }}</h1><p>{{ amount }} · {{ payment.number }}</p><a href="{{ shopUrl }}">Acme</a>')
  const { app } = await buildTestApp({ pages: { templatePaths: { PaywireFastify: dir }, locale: 'de-DE' } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await app.inject({ url: pathOf(token.targetUrl) })
  const done = await app.inject({ url: pathOf(token.afterUrl), headers: BROWSER })
  t.match(done.body, '<h1 class="brand">Thank you</h1><p>19,99\u00a0€ · ORDER-1</p><a href="/">Acme</a>')
  const error = await app.inject({ url: `/payment/capture/${'a'.repeat(43)}`, headers: BROWSER })
  t.match(error.body, 'This payment link is no longer valid', 'templates not overridden keep the built-in ones')
})

t.test('pages send no-referrer, a strict CSP and forbid framing; gateway pages keep a baseline', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  const capture = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(capture.headers['referrer-policy'], 'no-referrer', 'the redirect to the done page: its token never travels in Referer')
  const done = await app.inject({ url: pathOf(token.afterUrl), headers: BROWSER })
  t.equal(done.headers['referrer-policy'], 'no-referrer')
  t.equal(done.headers['content-security-policy'], PAGE_CSP)
  t.match(done.headers['content-security-policy'], "frame-ancestors 'none'")
  t.equal(done.headers['x-frame-options'], 'DENY')
  t.equal(done.headers['x-content-type-options'], 'nosniff')
  t.equal(done.headers['strict-transport-security'], undefined, 'HSTS is the application\'s decision')
  const error = await app.inject({ url: `/payment/done/${'a'.repeat(43)}`, headers: BROWSER })
  t.equal(error.headers['content-security-policy'], PAGE_CSP)

  const other = await storedPayment(app)
  const scripted = await app.paywire.getTokenFactory().createCaptureToken('scripted', other, 'done')
  const { HttpPostRedirect } = await import('../../../plugins/core/index.ts')
  script.reply = new HttpPostRedirect('https://acs.example/3ds', { PaReq: 'x' })
  const form = await app.inject({ url: pathOf(scripted.targetUrl), headers: BROWSER })
  t.equal(form.headers['content-security-policy'], "frame-ancestors 'none';base-uri 'none';object-src 'none'", 'the auto-submitting form still runs')
  t.equal(form.headers['referrer-policy'], 'no-referrer')

  const apps = await Fastify()
  t.teardown(() => apps.close())
  await apps.register(helmet, { referrerPolicy: { policy: 'same-origin' } })
  await apps.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
  await apps.register(offlineGateway)
  const own = await apps.inject({ url: `/payment/done/${'a'.repeat(43)}`, headers: BROWSER })
  t.equal(own.headers['referrer-policy'], 'same-origin', 'an application\'s own helmet is kept')
  t.not(own.headers['content-security-policy'], PAGE_CSP)

  const off = await buildTestApp({ pages: { securityHeaders: false } })
  t.teardown(() => off.app.close())
  const plain = await off.app.inject({ url: `/payment/done/${'a'.repeat(43)}`, headers: BROWSER })
  t.equal(plain.headers['referrer-policy'], undefined)
})

t.test('HEAD never runs a gateway: a link scanner does not capture the payment', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  for (const url of [pathOf(token.targetUrl), pathOf(token.afterUrl), '/payment/notify/unsafe/scripted']) {
    const head = await app.inject({ method: 'HEAD', url })
    t.equal(head.statusCode, 405, url)
    t.match(head.headers.allow, /^GET/)
  }
  t.same(script.calls, {}, 'no request reached the gateway')
  const capture = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(capture.statusCode, 302, 'the buyer\'s own visit still captures')
  t.equal((await app.paywire.getStorage(Payment).find(payment.id as string))?.details.status, 'capture')
})

t.test('pages options are checked, with the near miss named', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /"pages"/],
    [{ shopURL: '/' }, /"pages\.shopURL".*did you mean shopUrl/],
    [{ shopUrl: 'javascript:alert(1)' }, /"pages\.shopUrl"/],
    [{ locale: 'not a locale!' }, /"pages\.locale"/],
    [{ templatePaths: { PaywireFastify: 7 } }, /"pages\.templatePaths"/],
    [{ doneFields: 'details' }, /"pages\.doneFields"/],
    [{ doneFields: ['clientemail'] }, /"pages\.doneFields\.0".*did you mean clientEmail/],
    [{ securityHeaders: 'no' }, /"pages\.securityHeaders"/]
  ]
  for (const [pages, message] of cases) {
    const app = Fastify()
    app.register(paywire, { baseUrl: 'https://shop.example', pages } as Record<string, unknown>)
    await t.rejects(async () => { await app.ready() }, { code: 'PAYWIRE_ERR_INVALID_OPTION', message }, JSON.stringify(pages))
    await app.close()
  }
})
