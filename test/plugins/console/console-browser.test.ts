/*
 * An operator with a real browser (Debian's Chromium through playwright-core) uses the
 * console on the demo shop: a buyer pays by card on the Stripe simulator's hosted page, then
 * the operator finds the payment in the list with filters, opens it, refunds part of it
 * through the confirmation step and reads the new amounts and timeline; the same refund form
 * walked with the keyboard only; the 403 page for someone authorize refuses; the list on a
 * phone's width. Screenshots go to the test's own directory (kept with `npx tap --save-fixture`).
 * One browser for the file.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { buildDemoShop } from '../../../app.ts'
import { paywireConsole } from '../../../plugins/console/index.ts'
import { PREFIX, roleAuthorize } from './fixtures.ts'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']

const app = await buildDemoShop({ rateLimits: false, paypal: false })
await app.register(paywireConsole, { authorize: roleAuthorize })
t.teardown(() => app.close())
const origin = await app.listen({ port: 0, host: '127.0.0.1' })
const stripe = app.stripeSimulator?.simulator
if (stripe === undefined) throw new Error('the demo shop runs the Stripe simulator by default')
t.teardown(() => stripe.webhooks.waitForIdle())
const consoleUrl = `${origin}${PREFIX}/`

const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS })
t.teardown(() => browser.close())

/** A fresh browser context (no cookies); an operator's sends the role header the application's authorize reads. */
async function newPage (t: Test, role?: string, viewport = { width: 1100, height: 800 }): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', viewport, extraHTTPHeaders: role === undefined ? {} : { 'x-operator': role } })
  t.teardown(() => context.close())
  return await context.newPage()
}

const testdirs = new WeakMap<Test, string>()

/** Saves what the operator sees, and checks it is a picture of a page. */
async function screenshot (t: Test, page: Page, name: string): Promise<void> {
  const dir = testdirs.get(t) ?? t.testdir()
  testdirs.set(t, dir)
  const path = join(dir, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  const png = await readFile(path)
  t.same([...png.subarray(1, 4)], [...Buffer.from('PNG')], `${name}.png is a PNG`)
  t.ok(png.length > 5_000, `${name}.png shows a page (${png.length} bytes)`)
}

const textOf = async (page: Page, selector: string) => (await page.textContent(selector))?.replace(/\s+/g, ' ').trim()

/** A buyer pays 19.99 EUR by card on the simulator's hosted page; answers the order number. */
async function buyerPays (t: Test): Promise<string> {
  const page = await newPage(t)
  await page.goto(`${origin}/`)
  await page.fill('#amount', '19.99')
  await page.selectOption('#currency', 'EUR')
  await page.selectOption('#gateway', { label: 'Card (Stripe)' })
  await page.click('button[type=submit]')
  await page.check('input[name=payment_method][value=pm_card_visa]')
  await page.click('button[value=pay]')
  await page.waitForURL(`${origin}/payment/done/**`)
  t.equal((await page.textContent('h1'))?.trim(), 'Thank you')
  await stripe?.webhooks.waitForIdle()
  const number = await page.textContent('.number')
  return number?.trim() ?? ''
}

t.test('an operator finds a card payment, refunds part of it, and reads the new amounts and timeline', async (t) => {
  const number = await buyerPays(t)
  t.match(number, /^DEMO-/)
  const page = await newPage(t, 'admin')
  await page.goto(consoleUrl)
  t.equal(await textOf(page, 'h1'), 'Payments')
  t.match(await textOf(page, 'table.payments tbody'), number, 'listed')
  await screenshot(t, page, 'list')

  // Filters: captured card payments in EUR between 10 and 25.
  await page.check('input[name=status][value=captured]')
  await page.check('input[name=status][value=refunded]')
  await page.selectOption('#f-gateway', 'stripe')
  await page.fill('#f-currency', 'EUR')
  await page.fill('#f-min', '10')
  await page.fill('#f-max', '25')
  await page.click('form.filters button[type=submit]')
  t.match(page.url(), /status=captured&status=refunded&gateway=stripe&currency=EUR/)
  const rows = page.locator('table.payments tbody tr')
  t.equal(await rows.count(), 1)
  t.match(await rows.first().textContent(), /Captured[\s\S]*€19\.99/)
  await screenshot(t, page, 'list-filtered')

  await page.click(`text=${number}`)
  t.equal(await textOf(page, 'h1'), `Payment ${number}`)
  t.equal(await page.getAttribute('.status', 'data-status'), 'captured')
  t.equal(await textOf(page, '[data-amount=captured]'), '€19.99')
  const ids = await textOf(page, 'main')
  t.match(ids, /Provider's id\s*payment_intent\s*pi_/, 'the PaymentIntent\'s id')
  const timelineBefore = await page.locator('ol.timeline li').allTextContents()
  await screenshot(t, page, 'payment')

  await page.fill('#refund-amount', '5.00')
  await page.click('button:has-text("Refund…")')
  t.equal(await textOf(page, 'h1'), 'Confirm: refund')
  t.match(await textOf(page, 'main'), `Refund €5.00 of payment ${number} to the buyer?`)
  await screenshot(t, page, 'refund-confirm')
  await page.click('button:has-text("Yes, refund €5.00")')
  t.match(await textOf(page, '.notice'), /^Refunded €5\.00\. The payment is now refunded\.$/)
  t.equal(await textOf(page, '[data-amount=refunded]'), '€5.00')
  t.equal(await page.getAttribute('.status', 'data-status'), 'refunded')
  const timelineAfter = await page.locator('ol.timeline li').allTextContents()
  t.notSame(timelineAfter, timelineBefore, 'the timeline changed')
  t.match(timelineAfter.join('\n'), /Last change: Refunded: captured €19\.99, refunded €5\.00/)
  t.match(await textOf(page, 'main'), /re_/, 'the refund\'s id among the provider ids')
  // Ids yes; the PaymentIntent's client secret, API keys and webhook secrets never.
  t.notMatch(await page.content(), /_secret_|sk_(test|live)_|whsec_/)
  await screenshot(t, page, 'refunded')
  // Stripe (the simulator) refunded 5.00 once.
  const refunds = stripe.events().filter((event) => event.type === 'refund.created')
  t.equal(refunds.length, 1)

  // More than remains: the page again, with the message, the typed amount kept.
  await page.fill('#refund-amount', '15.00')
  await page.click('button:has-text("Refund…")')
  t.match(await textOf(page, '[role=alert]'), /Only €14\.99 can still be refunded; €15\.00 is more\./)
  t.equal(await page.inputValue('#refund-amount'), '15.00')
  await screenshot(t, page, 'refund-too-much')
})

t.test('keyboard only: from the payment page to a confirmed refund, without the mouse', async (t) => {
  await buyerPays(t)
  const page = await newPage(t, 'admin')
  await page.goto(`${consoleUrl}?gateway=stripe&status=captured`)
  // Tab to the first payment's link and follow it.
  // (Run in the page: the test's TypeScript has no DOM types.)
  const focused = async () => await page.evaluate<string>(`(() => {
    const element = document.activeElement
    return (element?.tagName ?? '') + ':' + (element?.getAttribute('id') ?? element?.textContent?.trim() ?? '')
  })()`)
  let steps = 0
  while (!(await focused()).startsWith('A:DEMO-') && steps++ < 40) await page.keyboard.press('Tab')
  t.match(await focused(), /^A:DEMO-/, 'the payment link is reachable with Tab')
  await page.keyboard.press('Enter')
  await page.waitForURL(/\/payments\//)
  steps = 0
  while ((await focused()) !== 'INPUT:refund-amount' && steps++ < 40) await page.keyboard.press('Tab')
  t.equal(await focused(), 'INPUT:refund-amount', 'the amount field is reachable with Tab')
  await page.keyboard.press('Control+A')
  await page.keyboard.type('2.50')
  await page.keyboard.press('Enter')
  await page.waitForURL(/\/refund\?amount=2\.50/)
  steps = 0
  while (!(await focused()).startsWith('BUTTON:Yes') && steps++ < 20) await page.keyboard.press('Tab')
  t.equal(await focused(), 'BUTTON:Yes, refund €2.50')
  await screenshot(t, page, 'keyboard-confirm')
  await page.keyboard.press('Enter')
  await page.waitForSelector('.notice')
  t.match(await textOf(page, '.notice'), /^Refunded €2\.50\./)
  t.equal(await textOf(page, '[data-amount=refunded]'), '€2.50')
})

t.test('someone authorize refuses gets the 403 page', async (t) => {
  const page = await newPage(t)
  const answer = await page.goto(consoleUrl)
  t.equal(answer?.status(), 403)
  t.equal(await textOf(page, 'h1'), 'Not allowed')
  t.match(await textOf(page, '[role=alert]'), /You are not allowed to view payments/)
  await screenshot(t, page, 'forbidden')
})

t.test('on a phone\'s width the list and a payment fit the screen', async (t) => {
  const page = await newPage(t, 'viewer', { width: 375, height: 740 })
  await page.goto(consoleUrl)
  const overflow = async () => await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')
  t.ok(await overflow() <= 0, 'no sideways scrolling on the list')
  t.equal(await page.locator('table.payments thead').isVisible(), true, 'the header row stays for screen readers')
  await screenshot(t, page, 'phone-list')
  await page.locator('table.payments tbody a').first().click()
  t.ok(await overflow() <= 0, 'no sideways scrolling on a payment')
  await screenshot(t, page, 'phone-payment')
})
