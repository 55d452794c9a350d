import t from 'tap'
import {
  HttpPostRedirect, HttpRedirect, HttpResponse, MemoryTokenStorage, Payment, PayoutModel, Reply, type Token, type TokenClaim
} from '../../../plugins/core/index.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

t.test('capture completes, invalidates its token and redirects to the done page', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  t.match(token.targetUrl, /^https:\/\/shop\.example\/payment\/capture\/[\w-]{51}$/)

  const capture = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(capture.statusCode, 302)
  t.equal(capture.headers.location, token.afterUrl)
  t.match(token.afterUrl, /^https:\/\/shop\.example\/payment\/done\/[\w-]{51}$/)

  const done = await app.inject({ url: pathOf(token.afterUrl) })
  t.equal(done.statusCode, 200)
  t.same(done.json(), {
    status: 'captured',
    message: 'Your payment was received.',
    payment: { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' },
    amounts: { captured: 1999, refunded: 0, reversed: 0 }
  })
  t.equal(done.headers['cache-control'], 'no-store')

  const again = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(again.statusCode, 303, 'the capture token is single use: a reload goes to the payment\'s result')
  t.equal(again.headers.location, token.afterUrl)
  t.equal((await app.inject({ method: 'POST', url: pathOf(token.targetUrl) })).statusCode, 303, 'also for a form posted again')
  const doneAgain = await app.inject({ url: pathOf(token.afterUrl) })
  t.equal(doneAgain.statusCode, 200, 'the done page can be reloaded')
})

t.test('a capture that replies keeps its token; the buyer comes back and completes it', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')

  script.reply = new HttpRedirect('https://provider.example/approve?token=EC-1')
  const first = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(first.statusCode, 302)
  t.equal(first.headers.location, 'https://provider.example/approve?token=EC-1')

  const back = await app.inject({ url: `${pathOf(token.targetUrl)}?PayerID=BUYER1&paymentId=PAY-1` })
  t.equal(back.statusCode, 302)
  t.equal(back.headers.location, token.afterUrl)
  t.same(script.seen[1]?.query, { PayerID: 'BUYER1', paymentId: 'PAY-1' }, 'the gateway saw the return parameters')
  t.equal(script.calls.capture, 2)

  const third = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(third.statusCode, 303)
  t.equal(script.calls.capture, 2, 'a used token never reaches the gateway again')
  const stored = await app.paywire.getStorage(Payment).find(payment.id as string)
  t.equal(stored?.details.status, 'capture', 'details written by the gateway were stored')
})

t.test('replies become responses', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')

  script.reply = new HttpPostRedirect('https://acs.example/3ds', { PaReq: '<x>&"' })
  const post = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(post.statusCode, 200)
  t.match(post.headers['content-type'], /^text\/html/)
  t.match(post.body, '<form action="https://acs.example/3ds" method="post">')
  t.match(post.body, 'name="PaReq" value="&lt;x&gt;&amp;&quot;"')

  script.reply = new HttpResponse('{"ok":true}', 202, { 'content-type': 'application/json', 'x-gateway': 'scripted' })
  const page = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(page.statusCode, 202)
  t.equal(page.headers['x-gateway'], 'scripted')
  t.equal(page.body, '{"ok":true}')

  script.reply = new HttpResponse('<p>card form</p>')
  const form = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(form.statusCode, 200)
  t.match(form.headers['content-type'], /^text\/html; charset=utf-8/)

  class StrangeReply extends Reply {}
  script.reply = new StrangeReply()
  const logged: unknown[] = []
  app.log.error = (entry: unknown) => { logged.push(entry) }
  const strange = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(strange.statusCode, 500)
  t.equal(strange.json().code, 'PAYWIRE_ERR_UNSUPPORTED_REPLY')
  t.match(strange.json().message, 'StrangeReply')

  const still = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(still.statusCode, 302, 'a failed request releases the token: the buyer can retry')
})

t.test('authorize and payout run their requests and redirect to their after pages', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const authorize = await app.paywire.getTokenFactory().createAuthorizeToken('cash', payment, 'done')
  t.match(authorize.targetUrl, /\/payment\/authorize\//)
  const response = await app.inject({ url: pathOf(authorize.targetUrl) })
  t.equal(response.statusCode, 302)
  const done = await app.inject({ url: pathOf(response.headers.location) })
  t.equal(done.json().status, 'authorized')

  const storage = app.paywire.getStorage(PayoutModel)
  const payout = Object.assign(storage.create(), { recipientEmail: 'seller@example.com', totalAmount: 500, currencyCode: 'EUR' })
  await storage.update(payout)
  const token = await app.paywire.getTokenFactory().createPayoutToken('cash', payout, 'done')
  const payoutResponse = await app.inject({ method: 'POST', url: pathOf(token.targetUrl) })
  t.equal(payoutResponse.statusCode, 302)
  const payoutDone = await app.inject({ url: pathOf(payoutResponse.headers.location) })
  t.equal(payoutDone.json().status, 'payedout')
  t.equal(payoutDone.json().payment.totalAmount, 500)
})

t.test('refund and cancel redirect to their after URL when they have one, else answer 204', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const tokens = app.paywire.getTokenFactory()
  const payment = await storedPayment(app)
  const capture = await tokens.createCaptureToken('cash', payment, 'done')
  await app.inject({ url: pathOf(capture.targetUrl) })

  const refund = await tokens.createRefundToken('cash', payment)
  const refunded = await app.inject({ method: 'POST', url: pathOf(refund.targetUrl) })
  t.equal(refunded.statusCode, 204)
  t.equal((await app.inject({ url: pathOf(capture.afterUrl) })).json().status, 'refunded')
  const usedRefund = await app.inject({ method: 'POST', url: pathOf(refund.targetUrl) })
  t.equal(usedRefund.statusCode, 410, 'refund tokens are single use; without an after URL the answer says so')
  t.equal(usedRefund.json().code, 'PAYWIRE_ERR_TOKEN_USED')

  const pending = await storedPayment(app, { details: { paid: false } })
  const pendingCapture = await tokens.createCaptureToken('cash', pending, 'done')
  await app.inject({ url: pathOf(pendingCapture.targetUrl) })
  const cancel = await tokens.createCancelToken('cash', pending, 'https://shop.example/orders/1')
  const canceled = await app.inject({ url: pathOf(cancel.targetUrl) })
  t.equal(canceled.statusCode, 302)
  t.match(canceled.headers.location, /^https:\/\/shop\.example\/payment\/done\/|^https:\/\/shop\.example\/orders\/1/)
  t.equal((await app.inject({ url: pathOf(pendingCapture.afterUrl) })).json().status, 'canceled')
})

t.test('sync and notify tokens may be used again; notify answers 204 unless the gateway replies', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const tokens = app.paywire.getTokenFactory()
  const payment = await storedPayment(app)
  const sync = await tokens.createSyncToken('scripted', payment)
  t.equal((await app.inject({ url: pathOf(sync.targetUrl) })).statusCode, 204)
  t.equal((await app.inject({ url: pathOf(sync.targetUrl) })).statusCode, 204)
  t.equal(script.calls.sync, 2)

  const notify = await tokens.createNotifyToken('scripted', payment)
  const body = JSON.stringify({ event: 'paid', amount: 1999 })
  const first = await app.inject({ method: 'POST', url: pathOf(notify.targetUrl), headers: { 'content-type': 'application/json', 'user-agent': 'provider/1.0' }, body })
  t.equal(first.statusCode, 204)
  const seen = script.seen.at(-1)
  t.equal(seen?.content, body, 'actions get the raw body, byte for byte')
  t.same(seen?.request, { event: 'paid', amount: 1999 })
  t.equal(seen?.method, 'POST')
  t.equal(seen?.userAgent, 'provider/1.0')
  t.equal(seen?.clientIp, '127.0.0.1')
  t.equal(seen?.headers['content-type'], 'application/json')

  script.reply = new HttpResponse('ACK', 200, { 'content-type': 'text/plain' })
  const acknowledged = await app.inject({ method: 'POST', url: pathOf(notify.targetUrl), payload: 'a=1&b=2', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  t.equal(acknowledged.statusCode, 200)
  t.equal(acknowledged.body, 'ACK')
  t.same(script.seen.at(-1)?.request, { a: '1', b: '2' })
  t.equal(script.seen.at(-1)?.content, 'a=1&b=2')

  const text = await app.inject({ method: 'POST', url: pathOf(notify.targetUrl), payload: '<xml/>', headers: { 'content-type': 'text/xml' } })
  t.equal(text.statusCode, 204)
  t.equal(script.seen.at(-1)?.content, '<xml/>')
})

t.test('gateway-wide notifications on /notify/unsafe/:gateway', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const ok = await app.inject({ method: 'POST', url: '/payment/notify/unsafe/scripted', payload: { id: 'WH-1' } })
  t.equal(ok.statusCode, 204)
  t.equal(script.calls.notify, 1)
  t.same(script.seen[0]?.request, { id: 'WH-1' })

  script.reply = new HttpResponse('bad signature', 400)
  const rejected = await app.inject({ method: 'POST', url: '/payment/notify/unsafe/scripted', payload: { id: 'WH-2' } })
  t.equal(rejected.statusCode, 400)
  t.equal(rejected.body, 'bad signature')

  const unknown = await app.inject({ method: 'POST', url: '/payment/notify/unsafe/nope', payload: {} })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().code, 'PAYWIRE_ERR_UNKNOWN_GATEWAY')
  t.notMatch(unknown.json().message, 'cash', 'registered gateway names are not revealed to callers')

  const unsupported = await app.inject({ method: 'POST', url: '/payment/notify/unsafe/cash', payload: {} })
  t.equal(unsupported.statusCode, 404, 'the offline gateway takes no notifications')
  t.equal(unsupported.json().code, 'PAYWIRE_ERR_NOTIFY_NOT_SUPPORTED')
})

t.test('a token of a gateway that is no longer registered: 404, and the payment is not left claimed', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('removed', payment, 'done')
  const response = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(response.statusCode, 404)
  t.equal(response.json().code, 'PAYWIRE_ERR_UNKNOWN_GATEWAY')
  const tokens = app.paywire.getTokenStorage()
  t.ok(await tokens.claimModel(app.paywire.getStorage(Payment).identify(payment), 1000), 'the claim was released')
})

t.test('a payment another request holds answers 409 with Retry-After, and runs nothing', async (t) => {
  const { app, script } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  const held = await app.paywire.getTokenStorage().claimModel(app.paywire.getStorage(Payment).identify(payment), 60_000)
  const busy = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(busy.statusCode, 409)
  t.equal(busy.headers['retry-after'], '2')
  t.equal(busy.json().code, 'PAYWIRE_ERR_PAYMENT_BUSY')
  t.equal(script.calls.capture, undefined)
  await app.paywire.getTokenStorage().releaseClaim(held)
  t.equal((await app.inject({ url: pathOf(token.targetUrl) })).statusCode, 302)
})

/** A token storage whose claim reads tokens as they were when first seen: the bug a commit must still catch. */
class StaleClaimTokenStorage extends MemoryTokenStorage {
  readonly #seen = new Map<string, Token>()

  override async claim (hash: string, ttlMs: number): Promise<TokenClaim | null> {
    const live = await this.find(hash)
    if (live !== null) this.#seen.set(hash, live)
    const token = live ?? this.#seen.get(hash)
    return token === undefined ? null : { token, claim: await this.claimByKey(this.tokenClaimKey(token), ttlMs) }
  }
}

t.test('a run on a link another request used up first is refused at its commit: nothing stored, the buyer sent to the result', async (t) => {
  const { app, script } = await buildTestApp({ tokenStorage: new StaleClaimTokenStorage() })
  t.teardown(() => app.close())
  const payment = await storedPayment(app)
  const token = await app.paywire.getTokenFactory().createCaptureToken('scripted', payment, 'done')
  t.equal((await app.inject({ url: pathOf(token.targetUrl) })).statusCode, 302)
  const payments = app.paywire.getStorage(Payment)
  const version = payments.versionOf(await payments.find(payment.id as string) as Payment)
  const late = await app.inject({ url: pathOf(token.targetUrl) })
  t.equal(script.calls.capture, 2, 'the stale claim let the gateway run again')
  t.equal(late.statusCode, 303)
  t.equal(late.headers.location, token.afterUrl)
  t.equal(payments.versionOf(await payments.find(payment.id as string) as Payment), version, 'the late run stored nothing')
  t.ok(await app.paywire.getTokenStorage().claimModel(payments.identify(payment), 1000), 'and released its claim')
})
