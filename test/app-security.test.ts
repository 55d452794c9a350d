/*
 * The shop as users copy it: order numbers no two checkouts share. (Its furniture's security,
 * the form's checks, error pages and rate limits, is tested beside it under test/demo/.)
 */
import t from 'tap'
import { buildDemoShop } from '../app.ts'
import { Payment } from '../plugins/core/index.ts'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

t.test('200 concurrent checkouts get 200 different order numbers', async (t) => {
  const app = await buildDemoShop({ baseUrl: 'https://shop.example', paypal: false, rateLimits: false })
  t.teardown(() => app.close())
  await Promise.all(Array.from({ length: 200 }, () => app.inject({ method: 'POST', url: '/checkout', payload: 'amount=1&currency=EUR&gateway=offline', headers: FORM })))
  const numbers = (await app.paywire.getStorage(Payment).findBy({})).map((payment) => payment.number)
  t.equal(numbers.length, 200)
  t.equal(new Set(numbers).size, 200)
  t.ok(numbers.every((number) => /^DEMO-[0-9A-Z]+-[0-9A-F]{10}$/.test(number)))
})
