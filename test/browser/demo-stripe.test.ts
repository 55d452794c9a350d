/*
 * A buyer with a real browser (Debian's Chromium through playwright-core) walks the demo shop's
 * "Card (Stripe)" path on the in-process Stripe simulator's hosted page: pay, a decline then
 * pay, 3-D Secure passed and failed, the page's back button and the browser's, a double click
 * on Pay. Assertions are on what the pages say and on what Stripe (the simulator) recorded; the
 * pages a buyer meets on the way are saved as screenshots in the test's own directory (kept
 * with `npx tap --save-fixture`), to be looked at.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { buildDemoShop } from '../../app.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

const app = await buildDemoShop({ rateLimits: false })
t.teardown(() => app.close())
const origin = await app.listen({ port: 0, host: '127.0.0.1' })
const stripe = app.stripeSimulator?.simulator
if (stripe === undefined) throw new Error('the demo shop runs the Stripe simulator by default')
t.teardown(() => stripe.webhooks.waitForIdle())
const stripeOrigin = stripe.baseUrl()

// One browser for the file (launch() gives it a fresh temporary profile); a new context
// (no cookies, no history) per scenario.
const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
t.teardown(() => browser.close())

async function buyer (t: Test): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US' })
  t.teardown(() => context.close())
  return await context.newPage()
}

/** The shop's form, paid with Stripe: ends on Stripe's hosted page. */
async function checkout (t: Test, page: Page, amount: string, currency: string): Promise<void> {
  await page.goto(`${origin}/`)
  await page.fill('#amount', amount)
  await page.selectOption('#currency', currency)
  await page.selectOption('#gateway', { label: 'Card (Stripe)' })
  await page.click('button[type=submit]')
  t.equal(new URL(page.url()).origin, stripeOrigin, 'on Stripe\'s hosted page')
}

async function payWith (page: Page, paymentMethod: string): Promise<void> {
  await page.check(`input[name=payment_method][value=${paymentMethod}]`)
  await page.click('button[value=pay]')
}

const heading = async (page: Page) => (await page.textContent('h1'))?.trim()
const status = async (page: Page) => await page.getAttribute('.status', 'data-status')

// t.testdir() empties the directory each time it is called: once per test keeps every screenshot.
const testdirs = new WeakMap<Test, string>()

/** Saves what the buyer sees, and checks it is a picture of a page (PNG, not blank-small). */
async function screenshot (t: Test, page: Page, name: string): Promise<void> {
  const dir = testdirs.get(t) ?? t.testdir()
  testdirs.set(t, dir)
  const path = join(dir, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  const png = await readFile(path)
  t.same([...png.subarray(1, 4)], [...Buffer.from('PNG')], `${name}.png is a PNG`)
  t.ok(png.length > 5_000, `${name}.png shows a page (${png.length} bytes)`)
}

/** PaymentIntents that took money, by Stripe's own events. */
const succeeded = () => stripe.events().filter((event) => event.type === 'payment_intent.succeeded').length

t.test('pay: Stripe\'s page shows the amount, the buyer pays and reads the result in the shop', async (t) => {
  const page = await buyer(t)
  const before = succeeded()
  await checkout(t, page, '19.99', 'EUR')
  t.equal(await heading(page), 'Pay 19.99 EUR')
  await screenshot(t, page, 'stripe-checkout')
  await payWith(page, 'pm_card_visa')
  t.match(page.url(), `${origin}/payment/done/`)
  t.equal(await heading(page), 'Thank you')
  t.equal(await status(page), 'captured')
  t.equal(await page.textContent('.amount'), '€19.99')
  t.match(await page.textContent('.number'), /^DEMO-/)
  await screenshot(t, page, 'stripe-paid')
  await stripe.webhooks.waitForIdle()
  t.equal(succeeded(), before + 1, 'Stripe took the money once')
})

t.test('a declined card: Stripe\'s page says why and lets the buyer try another card, which pays', async (t) => {
  const page = await buyer(t)
  await checkout(t, page, '12', 'USD')
  await payWith(page, 'pm_card_chargeDeclinedInsufficientFunds')
  t.equal(new URL(page.url()).origin, stripeOrigin, 'still on Stripe\'s page')
  t.equal(await page.textContent('[role=alert]'), 'Your card has insufficient funds.')
  await screenshot(t, page, 'stripe-declined')
  await payWith(page, 'pm_card_mastercard')
  t.equal(await heading(page), 'Thank you')
  t.equal(await status(page), 'captured')
  t.equal(await page.textContent('.amount'), '$12.00')
})

t.test('3-D Secure passed: the challenge page, then the result in the shop', async (t) => {
  const page = await buyer(t)
  await checkout(t, page, '45.50', 'GBP')
  await payWith(page, 'pm_card_authenticationRequired')
  t.equal(await heading(page), '3D Secure authentication')
  await screenshot(t, page, 'stripe-3ds-challenge')
  await page.click('button[value=complete]')
  t.equal(await heading(page), 'Thank you')
  t.equal(await status(page), 'captured')
  t.equal(await page.textContent('.amount'), '£45.50')
})

t.test('3-D Secure failed: back on Stripe\'s page with the reason; leaving by its back button is a canceled payment, nothing charged', async (t) => {
  const page = await buyer(t)
  const before = succeeded()
  await checkout(t, page, '30', 'EUR')
  await payWith(page, 'pm_card_threeDSecure2Required')
  await page.click('button[value=fail]')
  t.equal(new URL(page.url()).origin, stripeOrigin, 'back on Stripe\'s page, which may still be paid')
  t.match(await page.textContent('[role=alert]'), /authenticat/i)
  await screenshot(t, page, 'stripe-3ds-failed')
  await page.click('button[value=cancel]')
  t.equal(await heading(page), 'Payment canceled')
  t.equal(await status(page), 'canceled')
  t.match(await page.textContent('.message'), 'nothing was charged')
  t.equal(succeeded(), before, 'no money moved')
})

t.test('the hosted page\'s back button: the shop says the payment was canceled and nothing charged; the page can no longer be paid', async (t) => {
  const page = await buyer(t)
  await checkout(t, page, '7.50', 'EUR')
  const sessionUrl = page.url()
  await page.click('button[value=cancel]')
  t.match(page.url(), `${origin}/payment/done/`)
  t.equal(await heading(page), 'Payment canceled')
  t.equal(await status(page), 'canceled')
  t.equal(await page.textContent('.amount'), '€7.50')
  await screenshot(t, page, 'stripe-back')
  const again = await page.goto(sessionUrl)
  t.equal(await heading(page), 'This Checkout Session is no longer available', 'Stripe expired the session: a stale tab cannot pay it')
  t.equal(again?.status(), 200)
})

t.test('the browser\'s back button after paying: Stripe\'s page cannot be paid again, the shop still says paid', async (t) => {
  const page = await buyer(t)
  const before = succeeded()
  await checkout(t, page, '1000', 'JPY')
  await payWith(page, 'pm_card_visa')
  t.equal(await heading(page), 'Thank you')
  const doneUrl = page.url()
  await page.goBack()
  t.equal(new URL(page.url()).origin, stripeOrigin, 'back on Stripe\'s page')
  t.equal(await heading(page), 'This Checkout Session is no longer available')
  await page.goto(doneUrl)
  t.equal(await status(page), 'captured')
  t.equal(await page.textContent('.amount'), '¥1,000')
  await stripe.webhooks.waitForIdle()
  t.equal(succeeded(), before + 1, 'paid once')
})

t.test('double clicks on Pay, the shop\'s and then Stripe\'s: the buyer pays once and lands on the result', async (t) => {
  const page = await buyer(t)
  const before = succeeded()
  const { sessionsCreated, sessionsCompleted } = stripe.counters()
  const posted = () => stripe.calls()['POST /c/pay/:id'] ?? 0
  const paid = posted()
  await page.goto(`${origin}/`)
  await page.fill('#amount', '64')
  await page.selectOption('#currency', 'CHF')
  await page.selectOption('#gateway', { label: 'Card (Stripe)' })
  await page.dblclick('button[type=submit]')
  // Neither page has a script to disable its button: Chromium may send the form once or twice, and
  // a second submit aborts the first navigation. Whatever it sent, the buyer lands on one page.
  await landOn(page, `${stripeOrigin}/**`)
  t.equal(await heading(page), 'Pay 64.00 CHF')
  const created = stripe.counters().sessionsCreated - sessionsCreated
  t.ok(created === 1 || created === 2, `one Checkout Session per submit Chromium sent (${created})`)
  await page.check('input[name=payment_method][value=pm_card_visa]')
  await page.dblclick('button[value=pay]')
  await landOn(page, `${origin}/payment/done/**`)
  t.equal(await heading(page), 'Thank you')
  t.equal(await status(page), 'captured')
  t.match(await page.textContent('.amount'), /^CHF\s64\.00$/)
  await stripe.webhooks.waitForIdle()
  t.ok(posted() - paid >= 1 && posted() - paid <= 2, 'Stripe\'s page was posted once or twice')
  t.equal(stripe.counters().sessionsCompleted, sessionsCompleted + 1, 'one session paid')
  t.equal(succeeded(), before + 1, 'Stripe took the money once')
})

/** Waits for the page to land on `url`, past a navigation a second submit aborted. */
async function landOn (page: Page, url: string): Promise<void> {
  try {
    await page.waitForURL(url)
  } catch (error) {
    if (!/ERR_ABORTED|frame was detached/.test((error as Error).message)) throw error
    await page.waitForURL(url)
  }
}
