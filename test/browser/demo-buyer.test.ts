/*
 * A buyer with a real browser (Debian's Chromium through playwright-core) walks the demo
 * shop: offline pay, PayPal approve, cancel and decline on the simulator's page, the back
 * button after paying, an expired link, a wrong address, too many attempts, PayPal failing.
 * Assertions are on what the page says; the last three pages are also saved as screenshots in
 * the test's own directory (kept with `npx tap --save-fixture`), to be looked at.
 */
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import t from 'tap'
import { buildDemoShop } from '../../app.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

const app = await buildDemoShop({ rateLimits: false })
t.teardown(() => app.close())
const origin = await app.listen({ port: 0, host: '127.0.0.1' })
t.teardown(() => app.paypalSimulator?.simulator.webhooks.waitForIdle())

// One browser for the file (launch() gives it a fresh temporary profile); a new context
// (no cookies, no history) per scenario.
const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
t.teardown(() => browser.close())

async function buyer (t: { teardown: (fn: () => Promise<void>) => void }): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US' })
  t.teardown(() => context.close())
  return await context.newPage()
}

async function checkout (page: Page, fields: { amount: string, currency: string, gateway: string }): Promise<void> {
  await page.goto(`${origin}/`)
  await page.fill('#amount', fields.amount)
  await page.selectOption('#currency', fields.currency)
  await page.selectOption('#gateway', fields.gateway)
  await page.click('button[type=submit]')
}

const heading = async (page: Page) => (await page.textContent('h1'))?.trim()

t.test('offline: the buyer pays and reads the result, with the amount in their format and a way back', async (t) => {
  const page = await buyer(t)
  await checkout(page, { amount: '12,50', currency: 'EUR', gateway: 'offline' })
  t.match(page.url(), `${origin}/payment/done/`)
  t.equal(await heading(page), 'Thank you')
  t.equal(await page.textContent('.message'), 'Your payment was received.')
  t.equal(await page.textContent('.amount'), '€12.50')
  t.match(await page.textContent('.number'), /^DEMO-/)
  await page.click('a.shop')
  t.equal(page.url(), `${origin}/`, 'back to the shop')
})

t.test('PayPal: approve on PayPal\'s page, then the result; the back button does not pay twice', async (t) => {
  const page = await buyer(t)
  const executed = app.paypalSimulator?.simulator.counters().paymentsExecuted ?? 0
  await checkout(page, { amount: '1000', currency: 'JPY', gateway: 'paypal' })
  t.match(await page.textContent('body'), '1000 JPY', 'PayPal\'s page shows the amount')
  await page.click('button[value=approve]')
  t.equal(await heading(page), 'Thank you')
  t.equal(await page.textContent('.amount'), '¥1,000')
  t.equal(app.paypalSimulator?.simulator.counters().paymentsExecuted, executed + 1)

  await page.goBack()
  t.match(page.url(), /cgi-bin\/webscr|\/payment\//, 'back on PayPal\'s page')
  const approve = await page.$('button[value=approve]')
  if (approve !== null) await approve.click()
  const text = await page.textContent('body') ?? ''
  t.notMatch(text, /"statusCode"|"code"/, 'a page a person reads, never JSON')
  t.match(text, /Thank you|no longer valid|being processed|already/i)
  t.equal(app.paypalSimulator?.simulator.counters().paymentsExecuted, executed + 1, 'PayPal executed the payment once')
})

t.test('PayPal: cancel on PayPal\'s page says nothing was charged', async (t) => {
  const page = await buyer(t)
  await checkout(page, { amount: '7.50', currency: 'EUR', gateway: 'paypal' })
  await page.click('button[value=cancel]')
  t.equal(await heading(page), 'Payment canceled')
  t.match(await page.textContent('.message'), 'nothing was charged')
  t.equal(await page.textContent('.amount'), '€7.50')
})

t.test('PayPal: a declined card is a page that says so, not JSON', async (t) => {
  const page = await buyer(t)
  await checkout(page, { amount: '3.20', currency: 'USD', gateway: 'paypal' })
  await page.click('button[value=decline]')
  const text = await page.textContent('body') ?? ''
  t.notMatch(text, /"statusCode"|PAYWIRE_ERR_INTERNAL/)
  t.match(await heading(page), /Payment failed|could not complete your payment/)
  t.match(text, 'nothing was charged', 'the buyer knows their money is safe')
})

t.test('an expired or unknown payment link is a page with a way back to the shop', async (t) => {
  const page = await buyer(t)
  const response = await page.goto(`${origin}/payment/capture/${'x'.repeat(43)}`)
  t.equal(response?.status(), 404)
  t.equal(await heading(page), 'This payment link is no longer valid')
  t.equal(response?.headers()['referrer-policy'], 'no-referrer')
  await page.click('a.shop')
  t.equal(page.url(), `${origin}/`)
})

t.test('the checkout form keeps the buyer\'s input after a mistake', async (t) => {
  const page = await buyer(t)
  await checkout(page, { amount: '12.5', currency: 'JPY', gateway: 'offline' })
  t.match(await page.textContent('[role=alert]'), '12.5 is not a valid amount in JPY')
  t.equal(await page.inputValue('#amount'), '12.5')
  t.equal(await page.inputValue('#currency'), 'JPY')
})

t.test('PayPal: a return opened twice at once (two browsers), then reloaded: one payment, a waiting page, then the result', async (t) => {
  const first = await buyer(t)
  const simulator = app.paypalSimulator?.simulator
  const executed = simulator?.counters().paymentsExecuted ?? 0
  await checkout(first, { amount: '20', currency: 'EUR', gateway: 'paypal' })
  // The buyer approves; PayPal's execute is held, so the return is still running when it is opened again.
  const held = simulator?.faults.hold({ method: 'POST', path: '/v1/payments/payment/*/execute' })
  let returnUrl = ''
  first.on('request', (request) => { if (request.isNavigationRequest() && request.url().includes('PayerID=')) returnUrl = request.url() })
  const approving = first.click('button[value=approve]')
  await held?.reached
  // Another browser (Chromium itself holds a second request for a URL already loading in the same profile).
  const second = await buyer(t)
  await second.goto(returnUrl)
  t.equal(await heading(second), 'Your payment is being processed', 'the second tab waits')
  t.match(await second.getAttribute('meta[http-equiv=refresh]', 'content') ?? '', /^\d+;url=/)
  held?.release()
  await approving
  t.equal(await heading(first), 'Thank you')
  await second.waitForSelector('h1:text-is("Thank you")')
  t.pass('the waiting tab refreshed itself into the result')

  await first.goto(returnUrl)
  t.equal(await heading(first), 'Thank you', 'a reload of the used return shows the result')
  t.match(first.url(), `${origin}/payment/done/`)
  t.equal(simulator?.counters().paymentsExecuted, executed + 1, 'PayPal executed the payment once')
})

t.test('a wrong address is a page with a way back to the shop', async (t) => {
  const page = await buyer(t)
  const response = await page.goto(`${origin}/no-such-page`)
  t.equal(response?.status(), 404)
  t.equal(await heading(page), 'Page not found')
  t.equal(await page.textContent('.message'), 'There is no page at this address. The shop is one click away.')
  await page.screenshot({ path: join(t.testdir(), 'not-found.png'), fullPage: true })
  await page.click('a.shop')
  t.equal(page.url(), `${origin}/`)
})

t.test('too many attempts: a sentence saying what to do, not a countdown', async (t) => {
  const strict = await buildDemoShop({ paypal: false, rateLimits: { checkout: 1 } })
  t.teardown(() => strict.close())
  const strictOrigin = await strict.listen({ port: 0, host: '127.0.0.1' })
  const page = await buyer(t)
  for (const attempt of [1, 2]) {
    await page.goto(`${strictOrigin}/`)
    await page.fill('#amount', '5')
    await page.click('button[type=submit]')
    if (attempt === 1) t.equal(await heading(page), 'Thank you')
  }
  t.equal(await heading(page), 'Too many attempts')
  t.equal(await page.textContent('.message'), 'Too many attempts; please wait a minute and try again.')
  await page.screenshot({ path: join(t.testdir(), 'rate-limited.png'), fullPage: true })
})

t.test('PayPal failing: the page says nothing was charged and to reload it; reloading later pays once', async (t) => {
  const page = await buyer(t)
  const simulator = app.paypalSimulator?.simulator
  // Every attempt the gateway makes at creating the PayPal payment fails, retries included.
  simulator?.faults.inject({ kind: 'error', status: 503, method: 'POST', path: '/v1/payments/payment', times: 100 })
  t.teardown(() => simulator?.faults.clear())
  await checkout(page, { amount: '8.40', currency: 'EUR', gateway: 'paypal' })
  t.equal(await heading(page), 'The payment provider could not complete your payment')
  t.match(await page.textContent('.message'), 'Reload this page in a moment to try again: reloading never charges you twice')
  t.equal(await page.textContent('.charge'), 'Nothing was charged.')
  await page.screenshot({ path: join(t.testdir(), 'provider-failure.png'), fullPage: true })
  simulator?.faults.clear()
  await page.reload()
  t.match(await page.textContent('body'), '8.40 EUR', 'the reload went on to PayPal\'s page')
  await page.click('button[value=approve]')
  t.equal(await heading(page), 'Thank you')
})
