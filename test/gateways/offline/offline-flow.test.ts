import t from 'tap'
import { OfflineGatewayFactory } from '../../../gateways/offline/index.ts'
import {
  Authorize, Cancel, Capture, GetHumanStatus, Notify, Payment, Payout, PayoutModel, PaywireBuilder, Refund, Sync,
  type Paywire, type Token
} from '../../../plugins/core/engine/index.ts'
import { CountingStorage } from '../../helpers/engine.ts'

function buildPaywire () {
  const payments = new CountingStorage(Payment)
  const paywire = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .addStorage(Payment, payments)
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  return { paywire, payments }
}

async function prepare (paywire: Paywire, details: Record<string, unknown> = {}) {
  const storage = paywire.getStorage(Payment)
  const payment = storage.create()
  payment.number = 'ORDER-1'
  payment.totalAmount = 1234
  payment.currencyCode = 'EUR'
  payment.details = details
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  return { payment, token }
}

/** What the buyer's browser sends for a token URL. */
function visit (url: string | null) {
  const parsed = new URL(url as string)
  return { url: parsed.pathname + parsed.search, query: Object.fromEntries(parsed.searchParams) }
}

async function statusOf (paywire: Paywire, token: Token): Promise<GetHumanStatus> {
  const status = new GetHumanStatus(token)
  await paywire.getGateway(token.gatewayName).execute(status)
  return status
}

t.test('prepare → capture → done reads captured', async (t) => {
  const { paywire, payments } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await prepare(paywire)
  t.match(token.targetUrl, /^https:\/\/shop\.example\/capture\?paywire_token=[\w-]{51}$/)
  t.match(token.afterUrl, /^https:\/\/shop\.example\/done\?paywire_token=[\w-]{51}$/)

  const verifier = paywire.getHttpRequestVerifier()
  const captureToken = await verifier.verify(visit(token.targetUrl))
  payments.updates = 0
  const reply = await paywire.getGateway(captureToken.gatewayName).execute(new Capture(captureToken), { catchReply: true })
  t.equal(reply, undefined)
  t.equal(payments.updates, 1, 'the payment is saved once, when the capture ends')
  t.equal(await verifier.invalidate(captureToken), true)
  await t.rejects(verifier.verify(visit(token.targetUrl)), { code: 'PAYWIRE_ERR_TOKEN_NOT_FOUND' })

  const doneToken = await verifier.verify(visit(token.afterUrl))
  t.not(doneToken.hash, captureToken.hash)
  const status = await statusOf(paywire, doneToken)
  t.equal(status.value, 'captured')
  const done = status.firstModel as Payment
  t.ok(done instanceof Payment)
  t.equal(done.id, payment.id)
  t.equal(done.totalAmount, 1234)
  t.equal(done.details.status, 'captured')

  const stored = await paywire.getStorage(Payment).find(payment.id as string)
  t.match(stored?.details, { status: 'captured', amount: 1234, currency: 'EUR', number: 'ORDER-1', paid: true })
})

t.test('paid: false reads pending, and a later capture with paid: true captures it', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await prepare(paywire, { paid: false })
  await paywire.getGateway('cash').execute(new Capture(token))
  t.equal((await statusOf(paywire, token)).value, 'pending')

  const storage = paywire.getStorage(Payment)
  const stored = await storage.find(payment.id as string) as Payment
  stored.details.paid = true
  await storage.update(stored)
  await paywire.getGateway('cash').execute(new Capture(token))
  t.equal((await statusOf(paywire, token)).value, 'captured')
})

t.test('a new payment reads new; a capture without a stored payment is not supported', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await prepare(paywire)
  t.equal((await statusOf(paywire, token)).value, 'new')
  await paywire.getStorage(Payment).delete(payment)
  await t.rejects(paywire.getGateway('cash').execute(new Capture(token)), {
    code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED', message: /Capture\{model: Identity\}.*storage for "Payment"/
  })
})

t.test('authorize, then capture', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment } = await prepare(paywire)
  const token = await paywire.getTokenFactory().createAuthorizeToken('cash', payment, 'done')
  await paywire.getGateway('cash').execute(new Authorize(token))
  t.equal((await statusOf(paywire, token)).value, 'authorized')
  await paywire.getGateway('cash').execute(new Capture(token))
  t.equal((await statusOf(paywire, token)).value, 'captured')
})

t.test('partial refunds add up to a full refund; more is a coded error; a refunded payment stays refunded', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const { payment, token } = await prepare(paywire)
  const gateway = paywire.getGateway('cash')
  await gateway.execute(new Capture(token))
  const refundToken = await paywire.getTokenFactory().createRefundToken('cash', payment)
  await gateway.execute(new Refund(refundToken, { amount: 234 }))
  t.equal((await statusOf(paywire, token)).value, 'refunded')
  await t.rejects(gateway.execute(new Refund(refundToken, { amount: 1001 })), {
    code: 'PAYWIRE_ERR_REFUND_AMOUNT_EXCEEDED', message: /only 1000 remain/
  })
  await gateway.execute(new Refund(refundToken))
  const stored = await paywire.getStorage(Payment).find(payment.id as string)
  t.equal(stored?.details.refunded_amount, 1234)
  await gateway.execute(new Capture(token))
  t.equal((await statusOf(paywire, token)).value, 'refunded', 'capturing again does not revive it')
})

t.test('cancel: a pending payment is canceled, a captured one is not', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const gateway = paywire.getGateway('cash')
  const pending = await prepare(paywire, { paid: false })
  await gateway.execute(new Capture(pending.token))
  await gateway.execute(new Cancel(await paywire.getTokenFactory().createCancelToken('cash', pending.payment)))
  t.equal((await statusOf(paywire, pending.token)).value, 'canceled')
  await gateway.execute(new Capture(pending.token))
  t.equal((await statusOf(paywire, pending.token)).value, 'canceled', 'capture does not revive a canceled payment')

  const captured = await prepare(paywire)
  await gateway.execute(new Capture(captured.token))
  await gateway.execute(new Cancel(captured.token))
  t.equal((await statusOf(paywire, captured.token)).value, 'captured')
})

t.test('a payout from preparation to done', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(PayoutModel)
  const payout = Object.assign(storage.create(), { recipientEmail: 'r@example.com', totalAmount: 500, currencyCode: 'JPY' })
  await storage.update(payout)
  const token = await paywire.getTokenFactory().createPayoutToken('cash', payout, 'done')
  t.match(token.targetUrl, /^https:\/\/shop\.example\/payout\?paywire_token=/)
  await paywire.getGateway('cash').execute(new Payout(await paywire.getHttpRequestVerifier().verify(visit(token.targetUrl))))
  const done = await paywire.getHttpRequestVerifier().verify(visit(token.afterUrl))
  const status = await statusOf(paywire, done)
  t.equal(status.value, 'payedout')
  t.ok(status.firstModel instanceof PayoutModel)
  const stored = await storage.find(payout.id as string)
  t.match(stored?.details, { status: 'payedout', amount: 500, currency: 'JPY', recipient_email: 'r@example.com', payout: true })

  const held = Object.assign(storage.create(), { totalAmount: 1, currencyCode: 'EUR', details: { payout: false } })
  await storage.update(held)
  const heldToken = await paywire.getTokenFactory().createPayoutToken('cash', held, 'done')
  await paywire.getGateway('cash').execute(new Payout(heldToken))
  t.equal((await statusOf(paywire, heldToken)).value, 'pending')
})

t.test('an invalid amount is refused before anything is converted', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const storage = paywire.getStorage(Payment)
  const payment = Object.assign(storage.create(), { totalAmount: 12.5, currencyCode: 'EUR' })
  await storage.update(payment)
  const token = await paywire.getTokenFactory().createCaptureToken('cash', payment, 'done')
  await t.rejects(paywire.getGateway('cash').execute(new Capture(token)), { code: 'PAYWIRE_ERR_INVALID_AMOUNT', statusCode: 400 })
  t.same((await storage.find(payment.id as string))?.details, {})
})

t.test('the offline gateway has no notify or sync', async (t) => {
  const { paywire } = buildPaywire()
  t.teardown(() => paywire.close())
  const { token } = await prepare(paywire)
  for (const Request of [Notify, Sync]) {
    await t.rejects(paywire.getGateway('cash').execute(new Request(token)), {
      code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED', message: new RegExp(`^Request ${Request.name}\\{model: ArrayObject\\}`)
    })
  }
})
