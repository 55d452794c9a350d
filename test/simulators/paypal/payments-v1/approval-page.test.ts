import t from 'tap'
import { bearer, createPayment, execute, linkOf, paymentRequest, simulator } from '../fixtures/helpers.ts'

// One simulator for the subtests that need no fresh one; those that count, move its clock or change
// its options build their own.
const shared = simulator(t)
await shared.listen({ port: 0, host: '127.0.0.1' })

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('the buyer approves in a real browser-like round trip over loopback', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({
    transactions: [{ amount: { total: '12.5', currency: 'EUR' }, description: 'Mug <large>' }]
  }), { host: new URL(app.listeningOrigin).host })

  const approvalUrl = linkOf(payment, 'approval_url')
  t.ok(approvalUrl.startsWith(`${app.listeningOrigin}/cgi-bin/webscr?cmd=_express-checkout&token=EC-`))
  const page = await fetch(approvalUrl)
  t.equal(page.status, 200)
  t.match(page.headers.get('content-type'), /^text\/html/)
  const html = await page.text()
  t.match(html, /<html lang="en">/)
  t.match(html, /12\.50 EUR/)
  t.match(html, /Mug &lt;large&gt;/, 'merchant text is escaped')
  for (const label of ['Approve', 'Approve \\(pending eCheck\\)', 'Decline card', 'Cancel']) {
    t.match(html, new RegExp(`<button type="submit" name="decision" value="\\w+">${label}</button>`))
  }
  t.notMatch(html, /<script/i, 'no JavaScript')

  const token = new URL(approvalUrl).searchParams.get('token') ?? ''
  const approved = await fetch(`${app.listeningOrigin}/cgi-bin/webscr`, {
    method: 'POST', headers: FORM, body: new URLSearchParams({ cmd: '_express-checkout', token, decision: 'approve' }), redirect: 'manual'
  })
  t.equal(approved.status, 302)
  const location = new URL(approved.headers.get('location') ?? '')
  t.equal(location.origin + location.pathname, 'https://shop.test/return')
  t.equal(location.searchParams.get('order'), '42', 'existing query kept')
  t.equal(location.searchParams.get('paymentId'), payment.id)
  t.equal(location.searchParams.get('token'), token)
  const payerId = location.searchParams.get('PayerID') ?? ''
  t.match(payerId, /^[A-Z0-9]{13}$/)
  t.equal((await execute(app, auth, payment.id, payerId)).statusCode, 200)

  const afterwards = await fetch(approvalUrl)
  t.equal(afterwards.status, 400, 'an executed payment cannot be approved again')
  t.match(await afterwards.text(), /can no longer be approved/)
})

t.test('page decisions: pending eCheck, decline, cancel', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const decide = async (decision: string | undefined, body = paymentRequest()): Promise<{ location: string | undefined, payment: string, statusCode: number, body: string }> => {
    const payment = await createPayment(app, auth, body)
    const token = new URL(linkOf(payment, 'approval_url')).searchParams.get('token') ?? ''
    const fields: Record<string, string> = { cmd: '_express-checkout', token }
    if (decision !== undefined) fields.decision = decision
    const response = await app.inject({ method: 'POST', url: '/cgi-bin/webscr', headers: FORM, payload: new URLSearchParams(fields).toString() })
    return { location: response.headers.location as string | undefined, payment: payment.id, statusCode: response.statusCode, body: response.body }
  }

  const pending = await decide('approve_pending')
  const pendingPayer = new URL(pending.location ?? '').searchParams.get('PayerID') ?? ''
  const executed = (await execute(app, auth, pending.payment, pendingPayer)).json()
  t.match(executed.transactions[0].related_resources[0].sale, { state: 'pending', reason_code: 'ECHECK' })

  const declined = await decide('decline')
  const declinedPayer = new URL(declined.location ?? '').searchParams.get('PayerID') ?? ''
  t.equal((await execute(app, auth, declined.payment, declinedPayer)).json().name, 'INSTRUMENT_DECLINED')

  const cancelled = await decide('cancel', paymentRequest({ redirect_urls: { return_url: 'https://shop.test/r', cancel_url: 'https://shop.test/c?cancelled=1' } }))
  t.equal(cancelled.statusCode, 302)
  const cancelUrl = new URL(cancelled.location ?? '')
  t.equal(cancelUrl.searchParams.get('cancelled'), '1')
  t.match(cancelUrl.searchParams.get('token'), /^EC-/)
  t.notOk(cancelUrl.searchParams.has('PayerID'), 'no PayerID on cancel')
  t.notOk(cancelUrl.searchParams.has('paymentId'))
  t.equal(app.simulator.payment(cancelled.payment)?.state, 'created', 'cancel leaves the payment alone')

  const unknownDecision = await decide('maybe')
  t.equal(unknownDecision.statusCode, 400)
  t.match(unknownDecision.body, /Choose an outcome/)
  t.equal((await decide(undefined)).statusCode, 400)
})

t.test('unknown tokens and commands get a 404 page', async (t) => {
  const app = shared
  for (const url of ['/cgi-bin/webscr?cmd=_express-checkout&token=EC-UNKNOWN', '/cgi-bin/webscr?cmd=_other&token=EC-X', '/cgi-bin/webscr?cmd=_express-checkout']) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 404, url)
    t.match(response.headers['content-type'], /^text\/html/)
    t.match(response.body, /Payment not found/)
  }
  const posted = await app.inject({ method: 'POST', url: '/cgi-bin/webscr', headers: FORM, payload: 'cmd=_express-checkout&token=EC-UNKNOWN&decision=approve' })
  t.equal(posted.statusCode, 404)
  const empty = await app.inject({ method: 'POST', url: '/cgi-bin/webscr' })
  t.equal(empty.statusCode, 404)
})

t.test('an expired payment cannot be approved on the page', async (t) => {
  let now = Date.UTC(2024, 0, 1)
  const app = simulator(t, { now: () => now })
  const payment = await createPayment(app, await bearer(app))
  now += 3 * 3600 * 1000 + 1
  const url = new URL(linkOf(payment, 'approval_url'))
  const response = await app.inject({ url: url.pathname + url.search })
  t.equal(response.statusCode, 400)
  const posted = await app.inject({
    method: 'POST', url: '/cgi-bin/webscr', headers: FORM, payload: `cmd=_express-checkout&token=${url.searchParams.get('token') ?? ''}&decision=approve`
  })
  t.equal(posted.statusCode, 400)
})

t.test('approve and cancel through the control API', async (t) => {
  const app = shared
  const auth = await bearer(app)
  const payment = await createPayment(app, auth, paymentRequest({ redirect_urls: { return_url: 'https://shop.test/done', cancel_url: 'https://shop.test/c' } }))
  const approval = app.simulator.approve(payment.id, { buyer: { payerId: 'FIXEDPAYER123', email: 'x@example.test' } })
  t.same(approval, {
    paymentId: payment.id,
    token: approval.token,
    payerId: 'FIXEDPAYER123',
    redirectUrl: `https://shop.test/done?paymentId=${payment.id}&token=${approval.token}&PayerID=FIXEDPAYER123`
  })
  t.equal(app.simulator.approve(payment.id).payerId, app.simulator.payment(payment.id)?.payer.payer_info?.payer_id, 're-approval allowed before execute')
  t.equal(app.simulator.cancel(payment.id), `https://shop.test/c?token=${approval.token}`)
  t.throws(() => app.simulator.approve('PAYID-NOPE'), /no payment PAYID-NOPE/)

  const plain = new URL(linkOf(await createPayment(app, auth), 'approval_url'))
  const page = await app.inject({ url: plain.pathname + plain.search })
  t.match(page.body, /<p>You are paying <strong>7\.00 USD<\/strong>\.<\/p>\n<form/, 'no description paragraph when there is none')
})
