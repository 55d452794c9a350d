import t from 'tap'
import { Capture, Refund, isErrorCode } from '../../../../plugins/core/index.ts'
import { TestHttpClient } from '../fixtures/http.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { checkout, comeBack, exclusive, pay, startStripeShop, statusOf, submit, visit } from '../fixtures/shop.ts'

const SESSIONS = /^\/v1\/checkout\/sessions$/
const CAPTURES = /^\/v1\/payment_intents\/[^/]+\/capture$/
const REFUNDS = /^\/v1\/refunds$/

t.test('a session created but its answer lost: the buyer\'s retry sends the same key, Stripe replays, one session', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const started = await checkout(shop)
  shop.stripe.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/checkout/sessions' })
  const first = await visit(started.captureUrl, { headers: { accept: 'application/json' } })
  t.equal(first.status, 502)
  t.match(JSON.parse(first.body), { code: 'PAYWIRE_ERR_PROVIDER' })
  t.match((await statusOf(shop, started.id)).details, { paywire_idempotency: { checkout_session: `${started.id}:checkout_session:1` } }, 'the key stays open')
  const second = await visit(started.captureUrl)
  t.equal(second.status, 302)
  const posts = http.posts(SESSIONS)
  t.same(posts.map((post) => post.idempotencyKey), [`${started.id}:checkout_session:1`, `${started.id}:checkout_session:1`])
  t.match(shop.stripe.simulator.counters(), { sessionsCreated: 1 })
  const { details } = await statusOf(shop, started.id)
  t.equal(second.location, details.checkout_session.url)
  t.same(details.paywire_idempotency, {}, 'answered: the key is spent')
  const paid = await submit(second.location)
  t.equal((await comeBack(paid.location)).status, 'captured')
})

t.test('the SDK\'s own retries of a 5xx carry Paywire\'s key: one session', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http, gateway: { max_network_retries: 2 } })
  shop.stripe.simulator.faults.inject({ kind: 'error', status: 503, method: 'POST', path: '/v1/checkout/sessions', times: 2 })
  const paid = await pay(shop)
  t.equal(paid.status, 'captured')
  const keys = http.posts(SESSIONS).map((post) => post.idempotencyKey)
  t.same(keys, Array(3).fill(`${paid.id}:checkout_session:1`))
  t.match(shop.stripe.simulator.counters(), { sessionsCreated: 1 })
})

t.test('a capture whose answer was lost: the back office\'s retry replays it; captured once', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const paid = await pay(shop, { totalAmount: 4000 }, 'authorize')
  // Stripe's webhooks would tell the shop too (see below): held back, so the retry is what finds out.
  shop.stripe.simulator.webhooks.pause()
  shop.stripe.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/payment_intents/*/capture' })
  const lost = await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 2500 })).catch((error: Error) => error)
  t.ok(isErrorCode(lost, 'PAYWIRE_ERR_PROVIDER'))
  t.equal(shop.stripe.simulator.counters().captures, 1, 'Stripe did capture')
  t.equal((await statusOf(shop, paid.id)).status, 'authorized', 'Paywire does not know yet')
  await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 2500 }))
  shop.stripe.simulator.webhooks.resume()
  t.same(http.posts(CAPTURES).map((post) => post.idempotencyKey), [`${paid.id}:capture:1`, `${paid.id}:capture:1`])
  t.same((await assertAgree(t, shop, paid.id, 'captured')).amounts, { captured: 2500, refunded: 0, reversed: 0 })
  t.equal(shop.stripe.simulator.counters().captures, 1)
})

t.test('a capture lost, then retried with another amount: Stripe is asked first, nothing is captured twice', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const paid = await pay(shop, { totalAmount: 4000 }, 'authorize')
  shop.stripe.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/payment_intents/*/capture' })
  await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 1000 })).catch(() => {})
  await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 3000 }))
  t.equal(http.posts(CAPTURES).length, 1, 'the first capture happened: no second call')
  t.same((await assertAgree(t, shop, paid.id, 'captured')).amounts, { captured: 1000, refunded: 0, reversed: 0 })

  const other = await pay(shop, { totalAmount: 4000 }, 'authorize')
  shop.stripe.simulator.faults.inject({ kind: 'error', method: 'POST', path: '/v1/payment_intents/*/capture' })
  await exclusive(shop, other.id, (model) => new Capture(model, { amount: 1000 })).catch(() => {})
  await exclusive(shop, other.id, (model) => new Capture(model, { amount: 3000 }))
  t.same(http.posts(CAPTURES).slice(1).map((post) => post.idempotencyKey), [`${other.id}:capture:1`, `${other.id}:capture:2`], 'never done: a new key for the new amount')
  t.same((await assertAgree(t, shop, other.id, 'captured')).amounts, { captured: 3000, refunded: 0, reversed: 0 })
})

t.test('a refund whose answer was lost is found by its key among Stripe\'s refunds; one that never reached Stripe is sent again with it', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const paid = await pay(shop, { totalAmount: 1000 })
  shop.stripe.simulator.webhooks.pause()
  shop.stripe.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/refunds' })
  const lost = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 300 })).catch((error: Error) => error)
  t.ok(isErrorCode(lost, 'PAYWIRE_ERR_PROVIDER'))
  t.match((await statusOf(shop, paid.id)).details.paywire_refunds, [{ key: `${paid.id}:refund:1`, amount: 300, state: 'sent' }])
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 300 }))
  t.equal(http.posts(REFUNDS).length, 1, 'found among Stripe\'s refunds: not sent again')
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 300, reversed: 0 })

  shop.stripe.simulator.faults.inject({ kind: 'error', status: 500, method: 'POST', path: '/v1/refunds' })
  const failed = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 200 })).catch((error: Error) => error)
  t.ok(isErrorCode(failed, 'PAYWIRE_ERR_PROVIDER'))
  // The back office asks for a different refund: the open one is settled first, with its own key.
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 100 }))
  t.same(http.posts(REFUNDS).slice(1).map((post) => post.idempotencyKey), [`${paid.id}:refund:2`, `${paid.id}:refund:2`, `${paid.id}:refund:3`])
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 600, reversed: 0 })
  t.equal(shop.stripe.simulator.counters().refunds, 3)
  shop.stripe.simulator.webhooks.resume()
})

t.test('a lost answer Stripe\'s webhook tells first: the refund is on record before anyone retries, and the retry sends nothing', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http })
  const paid = await pay(shop, { totalAmount: 1000 })
  shop.stripe.simulator.faults.inject({ kind: 'lose', method: 'POST', path: '/v1/refunds' })
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 400 })).catch(() => {})
  t.match((await statusOf(shop, paid.id)).details.paywire_refunds, [{ key: `${paid.id}:refund:1`, state: 'made' }], 'refund.created found it by its key')
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 400 }))
  t.equal(http.posts(REFUNDS).length, 1)
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 400, reversed: 0 })
})

t.test('rate limited, then a request that never answers within timeout_ms: kept open, retried with the same key, done once', async (t) => {
  const http = new TestHttpClient(t)
  const shop = await startStripeShop(t, { http, gateway: { timeout_ms: 300 } })
  const paid = await pay(shop, { totalAmount: 1000 })
  shop.stripe.simulator.faults.inject({ kind: 'rate_limit', method: 'POST', path: '/v1/refunds' })
  const limited = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 100 })).catch((error: Error) => error)
  t.match(limited, { code: 'PAYWIRE_ERR_PROVIDER', providerCode: 'rate_limit' })
  shop.stripe.simulator.faults.inject({ kind: 'hang', method: 'POST', path: '/v1/refunds' })
  const hung = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 100 })).catch((error: Error) => error)
  t.match(hung, { code: 'PAYWIRE_ERR_PROVIDER', message: /timeout/ })
  await shop.stripe.simulator.faults.untilNoneHanging()
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 100 }))
  t.same(http.posts(REFUNDS).map((post) => post.idempotencyKey), Array(3).fill(`${paid.id}:refund:1`))
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 100, reversed: 0 })
})
