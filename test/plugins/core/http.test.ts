import t from 'tap'
import type { InjectOptions } from 'fastify'
import { Payment } from '../../../plugins/core/index.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

t.test('token errors are coded JSON: unknown 404, wrong route answered as unknown, malformed 400', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')

  const unknown = await app.inject({ url: `/payment/capture/${'A'.repeat(43)}` })
  t.equal(unknown.statusCode, 404)
  t.same(Object.keys(unknown.json()).sort(), ['code', 'error', 'message', 'statusCode'])
  t.equal(unknown.json().code, 'PAYWIRE_ERR_TOKEN_NOT_FOUND')

  const elsewhere = await app.inject({ url: `/payment/authorize/${token.hash}` })
  t.equal(elsewhere.statusCode, 404)
  t.same(elsewhere.json(), unknown.json(), 'a known token on another route answers exactly like an unknown one')
  const onDone = await app.inject({ url: `/payment/done/${token.hash}` })
  t.equal(onDone.statusCode, 404)
  t.same(onDone.json(), unknown.json(), 'a capture token on the done route too')
  const html = { accept: 'text/html' }
  const unknownPage = await app.inject({ url: `/payment/done/${'A'.repeat(43)}`, headers: html })
  const wrongPage = await app.inject({ url: `/payment/done/${token.hash}`, headers: html })
  t.equal(wrongPage.statusCode, 404)
  t.equal(wrongPage.body, unknownPage.body, 'and the same page for a browser')
  const stillUsable = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(stillUsable.statusCode, 302, 'a token tried on the wrong route is neither consumed nor left locked')
  const usedElsewhere = await app.inject({ url: `/payment/authorize/${token.hash}` })
  t.equal(usedElsewhere.statusCode, 404)
  t.same(usedElsewhere.json(), unknown.json(), 'a used link on another route answers like an unknown one too')
  t.equal((await app.inject({ url: pathOf(token.targetUrl) })).statusCode, 303, 'on its own route, a used link still leads to its result')

  const nowhere = await app.inject({ method: 'PUT', url: pathOf(token.targetUrl) })
  t.equal(nowhere.statusCode, 404)
  t.equal(nowhere.json().code, 'PAYWIRE_ERR_ROUTE_NOT_FOUND')
  t.equal(nowhere.json().message, `There is no payment route PUT ${new URL(token.targetUrl).pathname}.`)

  const malformed = await app.inject({ url: '/payment/capture/short' })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().code, 'PAYWIRE_ERR_VALIDATION')
  t.match(malformed.json().message, 'params.token')
})

t.test('bad input never gets a 500 and never changes a payment', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  const path = pathOf(token.targetUrl)
  const attempts: InjectOptions[] = [
    { method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: '{"broken":' },
    { method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"admin":true}}' },
    { method: 'POST', url: path, headers: { 'content-type': 'application/json' }, payload: 'x'.repeat(2 * 1024 * 1024) },
    { method: 'PUT', url: path },
    { method: 'DELETE', url: path },
    { url: '/payment/capture/' },
    { url: '/payment/capture/%E0%A4%A' },
    { url: `/payment/capture/${'a'.repeat(500)}` },
    { url: '/payment/capture/..%2F..%2Fetc%2Fpasswd' },
    { url: '/payment/done/%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00' },
    { url: '/payment/notify/unsafe/%3Cscript%3E' },
    { url: '/payment/notify/unsafe/' + 'g'.repeat(80) },
    { url: '/payment/nope/abc' }
  ]
  for (const attempt of attempts) {
    const response = await app.inject(attempt)
    t.ok(response.statusCode >= 400 && response.statusCode < 500, `${attempt.method ?? 'GET'} ${String(attempt.url).slice(0, 60)} → ${response.statusCode}`)
    t.notMatch(response.body, /at .+\.ts:\d+/, 'no stack trace')
    t.match(response.json().code, /^(PAYWIRE|FST)_ERR_/, 'coded')
  }
  const stored = await app.paywire.getStorage(Payment).find(payment.id as string)
  t.same(stored?.details, {}, 'nothing ran against the payment')
  const valid = await app.inject({ url: path })
  t.equal(valid.statusCode, 302, 'the token still works')
})

t.test('an unexpected failure is logged and answered without internals', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  let release: () => void = () => {}
  script.gate = new Promise<void>((resolve) => { release = resolve })
  const logged: unknown[] = []
  app.log.error = (entry: unknown) => { logged.push(entry) }
  const pending = app.inject({ url: pathOf(token.targetUrl) })
  // The action is held at the gate; make the commit fail when the execute finishes.
  const backend = app.paywire.getStorageBackend()
  const commit = backend.commit.bind(backend)
  backend.commit = async () => { throw new Error('disk full at /var/lib/secret-path') }
  release()
  const response = await pending
  backend.commit = commit
  t.equal(response.statusCode, 500)
  t.equal(response.json().code, 'PAYWIRE_ERR_INTERNAL')
  t.notMatch(response.body, 'secret-path')
  t.equal(logged.length, 1)
})

t.test('a gateway failure whose saves fail too: the gateway\'s error is answered, both are logged, the token is freed', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  const logged: Array<{ err?: Error }> = []
  app.log.error = (entry: { err?: Error }) => { logged.push(entry) }
  const backend = app.paywire.getStorageBackend()
  const commit = backend.commit.bind(backend)
  backend.commit = async () => { throw new Error('disk full') }
  script.error = new Error('gateway exploded')
  const failed = await app.inject({ url: pathOf(token.targetUrl) })
  backend.commit = commit
  t.equal(failed.statusCode, 500)
  t.equal(failed.json().code, 'PAYWIRE_ERR_INTERNAL')
  t.same(logged.map((entry) => entry.err?.message), ['disk full', 'gateway exploded'], 'the save failure, then the request\'s own error')

  const retried = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(retried.statusCode, 302, 'the token was released, not left locked')
  t.equal(retried.headers.location, token.afterUrl)
})
