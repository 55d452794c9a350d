import t from 'tap'
import { Cancel, Capture, Payout, PayoutModel, Refund, isErrorCode } from '../../../../plugins/core/index.ts'
import { assertAgree } from '../fixtures/truth.ts'
import { GATEWAY, exclusive, pay, startStripeShop, statusOf } from '../fixtures/shop.ts'

t.test('authorized at Stripe, then part captured by the back office: the rest is released', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 10_000, currencyCode: 'USD' }, 'authorize')
  t.equal(paid.status, 'authorized')
  const authorized = await assertAgree(t, shop, paid.id, 'authorized')
  t.match(authorized.details, { status: 'requires_capture', amount_capturable: 10_000, capture_method: 'manual' })

  const tooMuch = await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 10_001 })).catch((error: Error) => error)
  t.ok(isErrorCode(tooMuch, 'PAYWIRE_ERR_STRIPE_CAPTURE_AMOUNT_EXCEEDED'), 'more than the authorization: refused before Stripe hears of it')
  t.equal(shop.stripe.simulator.counters().captures, 0)

  await exclusive(shop, paid.id, (model) => new Capture(model, { amount: 6000 }))
  const captured = await assertAgree(t, shop, paid.id, 'captured')
  t.same(captured.amounts, { captured: 6000, refunded: 0, reversed: 0 })
  t.match(captured.details, { paywire_idempotency: {}, paywire_sequences: { capture: 1 } })
  t.equal(captured.details.paywire_capture_amount, undefined)

  // Captured already: another Capture changes nothing and calls nothing.
  await exclusive(shop, paid.id, (model) => new Capture(model))
  t.equal(shop.stripe.simulator.counters().captures, 1)
})

t.test('authorized, captured whole; an authorization canceled instead is released', async (t) => {
  const shop = await startStripeShop(t)
  const whole = await pay(shop, { totalAmount: 3000 }, 'authorize')
  await exclusive(shop, whole.id, (model) => new Capture(model))
  t.same((await assertAgree(t, shop, whole.id, 'captured')).amounts, { captured: 3000, refunded: 0, reversed: 0 })

  const released = await pay(shop, { totalAmount: 3000 }, 'authorize')
  await exclusive(shop, released.id, (model) => new Cancel(model))
  const canceled = await assertAgree(t, shop, released.id, 'canceled')
  t.match(canceled.details, { status: 'canceled', cancellation_reason: 'requested_by_customer' })
  await exclusive(shop, released.id, (model) => new Cancel(model))
  t.equal(shop.stripe.simulator.counters().cancellations, 1, 'a second Cancel calls nothing')
  const refused = await exclusive(shop, whole.id, (model) => new Cancel(model)).catch((error: Error) => error)
  t.ok(isErrorCode(refused, 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED'), 'a captured payment is refunded, not canceled')
})

t.test('an authorization left 7 days: Stripe cancels it, the payment reads expired', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, {}, 'authorize')
  shop.stripe.simulator.clock.advance(7 * 24 * 3600 * 1000 + 1000)
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.match((await assertAgree(t, shop, paid.id, 'expired')).details, { cancellation_reason: 'automatic' })
  const late = await exclusive(shop, paid.id, (model) => new Capture(model)).catch((error: Error) => error)
  t.equal(late, undefined, 'Capture of an expired payment does nothing')
  t.equal(shop.stripe.simulator.counters().captures, 0)
})

t.test('partial refunds up to the full amount, each with its own key; then nothing is left', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 1000 })
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 300 }))
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 300, reversed: 0 })
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 200 }))
  const over = await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 501 })).catch((error: Error) => error)
  t.ok(isErrorCode(over, 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED'), 'more than remains: refused before Stripe hears of it')
  await exclusive(shop, paid.id, (model) => new Refund(model))
  const refunded = await assertAgree(t, shop, paid.id, 'refunded')
  t.same(refunded.amounts, { captured: 1000, refunded: 1000, reversed: 0 })
  t.same(refunded.details.paywire_refunds.map((intent: { key: string, amount: number, state: string }) => [intent.key, intent.amount, intent.state]),
    [[`${paid.id}:refund:1`, 300, 'made'], [`${paid.id}:refund:2`, 200, 'made'], [`${paid.id}:refund:3`, 500, 'made']])
  const intents = await shop.sdk.refunds.list({ payment_intent: refunded.details.id })
  t.same(intents.data.map((refund) => refund.metadata?.paywire_refund_key).sort(), [1, 2, 3].map((n) => `${paid.id}:refund:${n}`))
  const nothing = await exclusive(shop, paid.id, (model) => new Refund(model)).catch((error: Error) => error)
  t.ok(isErrorCode(nothing, 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED'))
  t.equal(shop.stripe.simulator.counters().refunds, 3)
})

t.test('a pending refund counts once Stripe says it succeeded; a failed one moves nothing and is recorded', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, { totalAmount: 1000 })
  shop.stripe.simulator.refunds.nextOutcome('pending')
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 400 }))
  const pending = await assertAgree(t, shop, paid.id, 'captured')
  t.same(pending.amounts, { captured: 1000, refunded: 0, reversed: 0 }, 'nothing counted until Stripe says the money moved')
  const refundId = pending.details.refunds[0].id as string
  shop.stripe.simulator.refunds.settle(refundId, 'succeeded')
  await shop.stripe.simulator.webhooks.waitForIdle()
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 400, reversed: 0 })

  shop.stripe.simulator.refunds.nextOutcome('failed')
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 600 }))
  await shop.stripe.simulator.webhooks.waitForIdle()
  const failed = await assertAgree(t, shop, paid.id, 'refunded')
  t.same(failed.amounts, { captured: 1000, refunded: 400, reversed: 0 }, 'the failed refund moved nothing')
  t.match(failed.details.refunds[1], { status: 'failed', failure_reason: 'expired_or_canceled_card', amount: 600 })
  // The failed refund's money is refundable again.
  await exclusive(shop, paid.id, (model) => new Refund(model, { amount: 600 }))
  t.same((await assertAgree(t, shop, paid.id, 'refunded')).amounts, { captured: 1000, refunded: 1000, reversed: 0 })
})

t.test('a refund of a payment nobody paid is refused; a payout needs Connect', async (t) => {
  const shop = await startStripeShop(t)
  const paid = await pay(shop, {}, 'authorize')
  const refund = await exclusive(shop, paid.id, (model) => new Refund(model)).catch((error: Error) => error)
  t.ok(isErrorCode(refund, 'PAYWIRE_ERR_OPERATION_NOT_ALLOWED'))
  t.equal((await statusOf(shop, paid.id)).status, 'authorized')
  const calls = shop.stripe.simulator.calls()
  const payout = Object.assign(new PayoutModel(), { totalAmount: 500, currencyCode: 'EUR' })
  await t.rejects(shop.app.paywire.getGateway(GATEWAY).execute(new Payout(payout)), { code: 'PAYWIRE_ERR_STRIPE_PAYOUT_NOT_SUPPORTED', statusCode: 400, message: /Stripe Connect/ })
  t.same(shop.stripe.simulator.calls(), calls, 'nothing was sent')
  t.same(payout.details, {}, 'nothing was converted')
})
