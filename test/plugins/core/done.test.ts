import t from 'tap'
import { DetailsRecord, GetHumanStatus, Payment } from '../../../plugins/core/index.ts'
import { donePayload, publicDetails, renderDonePage } from '../../../plugins/core/done.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

t.test('the done page never shows the local part or secret-looking keys', async (t) => {
  t.same(publicDetails({
    status: 'captured',
    local: { note: 'VIP customer' },
    client_secret: 'x',
    nested: { apiKey: 'x', access_token: 'x', list: [{ password: 'x', kept: 1 }], kept: true },
    card_number: '4111'
  }), { status: 'captured', nested: { list: [{ kept: 1 }], kept: true } })
  t.same(publicDetails(null), {})
  t.same(publicDetails(['a']), {})
  t.same(publicDetails(new DetailsRecord({ local: 1, a: 2 })), { a: 2 })
})

t.test('the payload describes whatever model the token points at', async (t) => {
  const status = new GetHumanStatus(new DetailsRecord({ state: 'approved', local: {} }))
  status.markCaptured()
  t.same(donePayload(status), { status: 'captured', payment: { details: { state: 'approved' } } })
  const payment = Object.assign(new Payment(), { number: 'N1', totalAmount: 500, currencyCode: 'JPY', details: { local: { a: 1 }, b: 2 } })
  const forPayment = new GetHumanStatus(payment)
  t.same(donePayload(forPayment), { status: 'unknown', payment: { number: 'N1', totalAmount: 500, currencyCode: 'JPY', details: { b: 2 } } })
})

t.test('the HTML page is readable, escaped and formats the amount with the currency exponent', async (t) => {
  const html = await renderDonePage({ status: 'pending', payment: { number: '<b>N1</b>', totalAmount: 500, currencyCode: 'JPY', details: {} } })
  t.match(html, '<h1>Payment pending</h1>')
  t.match(html, '&lt;b&gt;N1&lt;/b&gt;')
  t.match(html, '500 JPY')
  t.match(html, '<html lang="en">')
  const odd = await renderDonePage({ status: 'captured', payment: { totalAmount: 1234, currencyCode: 'XYZ', details: {} } })
  t.match(odd, '1234 XYZ', 'an unknown currency shows the raw amount')
})

t.test('browsers get the page, API clients the JSON', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { totalAmount: 1999, details: { local: { vip: true } } })
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await app.inject({ url: pathOf(token.targetUrl) })
  const browser = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
  t.match(browser.headers['content-type'], /^text\/html/)
  t.match(browser.body, '19.99 EUR')
  t.match(browser.body, 'Your payment was received.')
  const api = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: 'application/json, text/html' } })
  t.match(api.headers['content-type'], /^application\/json/)
  t.notOk('local' in api.json().payment.details)
  const curl = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: '*/*' } })
  t.equal(curl.json().status, 'captured')
})
