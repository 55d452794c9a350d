/*
 * The checkout form's checks (demo/checkout-form.ts): nothing is stored until the form names a
 * known gateway and a payable amount, sent from the shop's own page; the form comes back as
 * the buyer filled it.
 */
import t from 'tap'
import { buildDemoShop } from '../../app.ts'
import { Payment } from '../../plugins/core/index.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('bad checkout input gets the form back with a message, never a payment', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example' })
  t.teardown(() => app.close())
  const cases: Array<[string, string]> = [
    ['amount=abc&currency=EUR&gateway=offline', 'Please enter an amount'],
    ['amount=12.5&currency=JPY&gateway=offline', '12.5 is not a valid amount in JPY'],
    ['amount=1&currency=XQQ&gateway=offline', 'not a valid amount in XQQ'],
    ['amount=1&currency=EUR&gateway=bitcoin', 'Unknown payment method'],
    ['amount=1', 'Please enter an amount']
  ]
  for (const [payload, message] of cases) {
    const response = await app.inject({ method: 'POST', url: '/checkout', payload, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    t.equal(response.statusCode, 400, payload)
    t.match(response.body, message)
    t.match(response.body, 'role="alert"')
  }
  t.same(await app.paywire.getStorage(Payment).findBy({}), [], 'nothing stored')
})

t.test('after an error, the form keeps what the buyer typed', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=12.5&currency=JPY&gateway=offline&description=Tea%20"set"', headers: FORM })
  t.equal(page.statusCode, 400)
  t.match(page.body, 'value="12.5"', 'not reset to 19.99')
  t.match(page.body, '<option selected>JPY</option>')
  t.match(page.body, '<option value="offline" selected>Pay by bank transfer (offline)</option>')
  t.match(page.body, 'value="Tea &quot;set&quot;"', 'escaped')
})

t.test('another site cannot post the checkout form', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  for (const headers of [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }]) {
    const page = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, ...headers } })
    t.equal(page.statusCode, 403, JSON.stringify(headers))
    t.match(page.body, 'This form can only be sent from the shop&#39;s own page.')
  }
  t.same(await app.paywire.getStorage(Payment).findBy({}), [], 'no payment was made')
  const own = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: { ...FORM, origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' } })
  t.equal(own.statusCode, 302, 'the shop\'s own page')
  const noBrowser = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: FORM })
  t.equal(noBrowser.statusCode, 302, 'clients that send no Origin (curl) are not browsers: no cookie to ride on')
})

t.test('an amount below one minor unit (zero, negative) is refused on the form, with what the buyer typed', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false })
  t.teardown(() => app.close())
  const cases: Array<[string, string, string]> = [
    ['amount=0&currency=EUR&gateway=offline', 'Please enter an amount of at least 0.01 EUR.', 'value="0"'],
    ['amount=0,00&currency=EUR&gateway=offline', 'Please enter an amount of at least 0.01 EUR.', 'value="0,00"'],
    ['amount=-5&currency=EUR&gateway=offline', 'Please enter an amount of at least 0.01 EUR.', 'value="-5"'],
    ['amount=0&currency=JPY&gateway=offline', 'Please enter an amount of at least 1 JPY.', '<option selected>JPY</option>'],
    ['amount=-0.5&currency=JPY&gateway=offline', '-0.5 is not a valid amount in JPY.', 'value="-0.5"']
  ]
  for (const [payload, message, kept] of cases) {
    const page = await app.inject({ method: 'POST', url: '/checkout', payload, headers: FORM })
    t.equal(page.statusCode, 400, payload)
    t.match(page.body, `<p class="error" role="alert">${message}</p>`)
    t.match(page.body, kept, 'the form as the buyer filled it')
  }
  t.same(await app.paywire.getStorage(Payment).findBy({}), [], 'no payment of nothing')
  const cent = await app.inject({ method: 'POST', url: '/checkout', payload: 'amount=0.01&currency=EUR&gateway=offline', headers: FORM })
  t.equal(cent.statusCode, 302, 'one cent is a payment')
})
