import t from 'tap'
import { DetailsRecord, GetHumanStatus, Payment } from '../../../plugins/core/index.ts'
import { donePayload, publicDetails } from '../../../plugins/core/done.ts'
import { BuyerPages } from '../../../plugins/core/pages.ts'
import { buildTestApp, pathOf, storedPayment } from './fixtures.ts'

t.test('details shown to the buyer never carry the local part or secret-looking keys', async (t) => {
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

t.test('the payload shows what the buyer needs; more only field by field', async (t) => {
  const status = new GetHumanStatus(new DetailsRecord({ state: 'approved', local: {} }))
  status.markCaptured()
  t.same(donePayload(status), { status: 'captured', message: 'Your payment was received.', payment: {} })
  t.same(donePayload(status, ['details']), { status: 'captured', message: 'Your payment was received.', payment: { details: { state: 'approved' } } })
  const payment = Object.assign(new Payment(), {
    number: 'N1', totalAmount: 500, currencyCode: 'JPY', clientEmail: 'payer@example.com', description: 'Mug', details: { local: { a: 1 }, b: 2, payer: { email: 'payer@example.com' } }
  })
  const forPayment = new GetHumanStatus(payment)
  t.same(donePayload(forPayment), {
    status: 'unknown', message: 'We could not determine the status of this payment yet. Please check again later.', payment: { number: 'N1', totalAmount: 500, currencyCode: 'JPY' }
  })
  t.same(donePayload(forPayment, ['description', 'details.b', 'details.missing', 'clientId']).payment, {
    number: 'N1', totalAmount: 500, currencyCode: 'JPY', description: 'Mug', details: { b: 2 }
  }, 'opted-in fields only; empty ones are left out')
})

t.test('the HTML page is readable, escaped, and formats the amount for the currency and locale', async (t) => {
  const pages = new BuyerPages({ shopUrl: 'https://shop.example/' })
  const request = (language?: string) => ({ headers: language === undefined ? {} : { 'accept-language': language } }) as never
  const html = await pages.done({ status: 'pending', message: '', payment: { number: '<b>N1</b>', totalAmount: 1000, currencyCode: 'JPY' } }, request())
  t.match(html, '<h1>Payment pending</h1>')
  t.match(html, '<span class="status" data-status="pending">Payment pending</span>', 'the status in the buyer\'s words; the word itself for scripts')
  t.match(await pages.done({ status: 'lost-in-space' as never, message: '', payment: {} }, request()), '<span class="status" data-status="lost-in-space">Unknown</span>')
  t.match(html, 'Your payment is being processed.')
  t.match(html, '&lt;b&gt;N1&lt;/b&gt;')
  t.match(html, '¥1,000')
  t.match(html, '<a class="shop" href="https://shop.example/">Back to the shop</a>')
  t.match(html, '<html lang="en">')
  const german = await pages.done({ status: 'captured', message: '', payment: { totalAmount: 1999, currencyCode: 'EUR' } }, request('de-DE,de;q=0.9,en;q=0.5'))
  t.match(german, '19,99\u00a0€', 'the buyer\'s locale')
  t.match(await pages.done({ status: 'captured', message: '', payment: { totalAmount: 1999, currencyCode: 'EUR' } }, request('xx-invalid;q=1, fr;q=0.8')), '19,99\u00a0€', 'the first locale Intl knows')
  const fixed = new BuyerPages({ locale: 'en-US' })
  t.match(await fixed.done({ status: 'captured', message: '', payment: { totalAmount: 1999, currencyCode: 'EUR' } }, request('de-DE')), '€19.99', 'a configured locale wins')
  t.match(await fixed.done({ status: 'captured', message: '', payment: { totalAmount: 123456789012345, currencyCode: 'BHD' } }, request()), 'BHD\u00a0123,456,789,012.345', 'every digit, with the currency\'s exponent')
  const odd = await pages.done({ status: 'captured', message: '', payment: { totalAmount: 1234, currencyCode: 'XYZ' } }, request())
  t.match(odd, '1234 XYZ', 'an unknown currency shows the raw amount')
})

t.test('amounts, when the gateway tells them: a partial refund reads partial, a reversal says so', async (t) => {
  const payment = Object.assign(new Payment(), { number: 'N1', totalAmount: 1999, currencyCode: 'EUR', details: {} })
  const status = new GetHumanStatus(payment)
  status.markRefunded()
  status.setAmounts({ captured: 1999, refunded: 500 })
  const payload = donePayload(status)
  t.same(payload.amounts, { captured: 1999, refunded: 500, reversed: 0 })
  t.equal(payload.message, 'Refunded 5.00 EUR of 19.99 EUR.', 'the JSON says it too')
  const pages = new BuyerPages({ locale: 'en-US' })
  const page = (done: typeof payload) => pages.done(done, { headers: {} } as never)
  t.match(await page(payload), 'Refunded €5.00 of €19.99.')
  const reversed = await page({ ...payload, amounts: { captured: 1999, refunded: 500, reversed: 1499 } })
  t.match(reversed, 'Refunded €5.00 of €19.99. Reversed €14.99 of €19.99: the payer&#39;s bank took it back (a chargeback).')
  t.match(await page({ ...payload, amounts: { captured: 1999, refunded: 0, reversed: 0 } }), 'This payment was refunded.', 'nothing went back yet: the plain words')
  const noCurrency = new GetHumanStatus(Object.assign(new Payment(), { details: {} }))
  noCurrency.markRefunded()
  noCurrency.setAmounts({ captured: 1999, refunded: 500 })
  t.equal(donePayload(noCurrency).message, 'This payment was refunded.', 'no currency: the plain words')
  t.notOk('amounts' in donePayload(new GetHumanStatus(payment)), 'a gateway that does not tell: no amounts')
})

t.test('browsers get the page, API clients the JSON', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { totalAmount: 1999, clientEmail: 'payer@example.com', details: { local: { vip: true } } })
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await app.inject({ url: pathOf(token.targetUrl) })
  const browser = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } })
  t.match(browser.headers['content-type'], /^text\/html/)
  t.match(browser.body, '€19.99')
  t.match(browser.body, 'Your payment was received.')
  t.notMatch(browser.body, 'payer@example.com')
  const api = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: 'application/json, text/html' } })
  t.match(api.headers['content-type'], /^application\/json/)
  t.same(api.json(), {
    status: 'captured',
    message: 'Your payment was received.',
    payment: { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR' },
    amounts: { captured: 1999, refunded: 0, reversed: 0 }
  })
  const curl = await app.inject({ url: pathOf(token.afterUrl), headers: { accept: '*/*' } })
  t.equal(curl.json().status, 'captured')
})

t.test('more on the done answer is opt-in, per field', async (t) => {
  const { app } = await buildTestApp({ pages: { doneFields: ['description', 'details.status'] } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { description: 'Mug', clientEmail: 'payer@example.com' })
  const token = await app.paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await app.inject({ url: pathOf(token.targetUrl) })
  const done = await app.inject({ url: pathOf(token.afterUrl) })
  t.same(done.json().payment, { number: 'ORDER-1', totalAmount: 1999, currencyCode: 'EUR', description: 'Mug', details: { status: 'captured' } })
})

t.test('reads never write: the done page and a status of a loaded payment leave its version, so a concurrent writer goes through', async (t) => {
  const { app } = await buildTestApp()
  t.teardown(() => app.close())
  const payments = app.paywire.getStorage(Payment)
  const token = await app.paywire.prepareCapture('cash', await storedPayment(app), 'done')
  t.equal((await app.inject({ url: pathOf(token.targetUrl) })).statusCode, 302)
  const id = token.details?.id as string
  const versionNow = async () => payments.versionOf(await payments.find(id) as Payment)
  const captured = await versionNow()
  const writer = await payments.find(id) as Payment
  t.equal((await app.inject({ url: pathOf(token.afterUrl) })).statusCode, 200)
  t.equal(await versionNow(), captured, 'the done page')
  const status = new GetHumanStatus(await payments.find(id) as Payment)
  await app.paywire.getGateway('cash').execute(status)
  t.equal(status.value, 'captured')
  t.equal(await versionNow(), captured, 'GetHumanStatus on a payment the shop loaded')
  writer.description = 'shipped'
  await payments.update(writer)
  t.equal(await versionNow(), (captured as number) + 1, 'the writer that read before both reads is not refused')
})
