import { ApiError, CheckoutPaymentIntent, OrdersController, PatchOp, PaymentsController } from '@paypal/paypal-server-sdk'
import type { ApiResponse } from '@paypal/paypal-server-sdk'
import t from 'tap'
import type { Test } from 'tap'
import { enumProblems, judgedSimulator, serverSdk, unknownFields, unservedLinks } from './fixtures.ts'
import type { Judged } from './fixtures.ts'

/*
 * PayPal's own server SDK (@paypal/paypal-server-sdk 2.x) drives the simulator through every Orders v2 and
 * Payments v2 call it offers that Paywire uses or the simulator serves. Each answer must pass the SDK's
 * response validation (callAsJson maps the body through the SDK's models and throws
 * ResponseValidationError on a mismatch; non-2xx answers throw ApiError), carry only statuses, reasons and
 * link methods of the SDK's enums, no field the SDK's models lack (but the invented ones issue 21 defers),
 * and advertise only links the simulator serves.
 */

const DAY = 24 * 3600 * 1000
type Kind = 'order' | 'capture' | 'authorization' | 'refund'

function judge (t: Test, judged: Judged, response: ApiResponse<unknown>, kind: Kind, label: string): Record<string, any> {
  const raw = JSON.parse(response.body as string) as Record<string, any>
  t.same(enumProblems(raw, kind), [], `${label}: statuses, reasons and link methods are the SDK's`)
  const unknown = unknownFields(raw, response.result)
  t.same(unknown, [], `${label}: no field the SDK's models lack`)
  t.same(unservedLinks(judged, raw), [], `${label}: every advertised link is served`)
  return raw
}

const AMOUNT = { currencyCode: 'USD', value: '10.00' }
function orderBody (intent: CheckoutPaymentIntent, withSource = true) {
  return {
    intent,
    purchaseUnits: [{ amount: { ...AMOUNT, breakdown: { itemTotal: AMOUNT } }, items: [{ name: 'Mug', quantity: '2', unitAmount: { currencyCode: 'USD', value: '5.00' } }], customId: 'payment-1' }],
    ...(withSource ? { paymentSource: { paypal: { experienceContext: { returnUrl: 'https://shop.test/return', cancelUrl: 'https://shop.test/cancel' } } } } : {})
  }
}

t.test('Orders v2: create, get, patch, capture, refund (full, pending then settled), get capture and refund', async (t) => {
  const judged = await judgedSimulator(t)
  const client = serverSdk(judged.app)
  const orders = new OrdersController(client)
  const payments = new PaymentsController(client)

  const created = await orders.createOrder({ body: orderBody(CheckoutPaymentIntent.Capture), prefer: 'return=representation', paypalRequestId: 'judge-create-1' })
  t.equal(created.statusCode, 201)
  const order = judge(t, judged, created, 'order', 'create')
  t.equal(created.result.status, 'PAYER_ACTION_REQUIRED')
  t.ok(created.result.links?.some((link) => link.rel === 'payer-action'))

  const plain = await orders.createOrder({ body: orderBody(CheckoutPaymentIntent.Capture, false), prefer: 'return=minimal' })
  judge(t, judged, plain, 'order', 'create without payment_source')
  t.same(plain.result.links?.map((link) => link.rel), ['self', 'approve', 'update', 'capture'], 'approve, not payer-action')

  const patched = await orders.patchOrder({
    id: order.id,
    body: [
      { op: PatchOp.Replace, path: "/purchase_units/@reference_id=='default'/amount", value: { currency_code: 'USD', value: '12.00', breakdown: { item_total: { currency_code: 'USD', value: '10.00' }, shipping: { currency_code: 'USD', value: '2.00' } } } },
      { op: PatchOp.Add, path: "/purchase_units/@reference_id=='default'/invoice_id", value: 'INV-JUDGE-1' }
    ]
  })
  t.equal(patched.statusCode, 204)
  const fetched = await orders.getOrder({ id: order.id })
  judge(t, judged, fetched, 'order', 'get after patch')
  t.equal(fetched.result.purchaseUnits?.[0]?.amount?.value, '12.00')

  judged.app.simulator.orders.approve(order.id)
  const captured = await orders.captureOrder({ id: order.id, prefer: 'return=representation', paypalRequestId: 'judge-capture-1' })
  t.equal(captured.statusCode, 201)
  judge(t, judged, captured, 'order', 'capture')
  const captureId = captured.result.purchaseUnits?.[0]?.payments?.captures?.[0]?.id as string
  judge(t, judged, await payments.getCapturedPayment({ captureId }), 'capture', 'get capture')

  judged.app.simulator.orders.queueRefundOutcome('PENDING')
  const pending = await payments.refundCapturedPayment({ captureId, body: { amount: { currencyCode: 'USD', value: '2.00' }, customId: 'refund-1' }, prefer: 'return=representation' })
  t.equal(pending.statusCode, 201)
  judge(t, judged, pending, 'refund', 'pending refund')
  t.match(pending.result, { status: 'PENDING', statusDetails: { reason: 'ECHECK' }, customId: 'refund-1' })
  judged.app.simulator.orders.settleRefund(pending.result.id as string, 'COMPLETED')
  const settled = await payments.getRefund({ refundId: pending.result.id as string })
  judge(t, judged, settled, 'refund', 'settled refund')
  t.equal(settled.result.status, 'COMPLETED')

  judged.app.simulator.orders.queueRefundOutcome('FAILED')
  const failed = await payments.refundCapturedPayment({ captureId, body: { amount: { currencyCode: 'USD', value: '1.00' } }, prefer: 'return=representation' })
  judge(t, judged, failed, 'refund', 'failed refund')
  t.equal(failed.result.status, 'FAILED')
  const rest = await payments.refundCapturedPayment({ captureId, prefer: 'return=representation' })
  judge(t, judged, rest, 'refund', 'refund of the rest')
  t.match(rest.result, { status: 'COMPLETED', amount: { value: '10.00' } })
  judge(t, judged, await payments.getCapturedPayment({ captureId }), 'capture', 'refunded capture')
  judge(t, judged, await orders.getOrder({ id: order.id }), 'order', 'order with its refunds')
})

t.test('Payments v2: authorize, get, partial capture, reauthorize after the honor period, void (empty form body), capture', async (t) => {
  // The SDK keeps its token by its own clock: the simulator's token must outlive the days advanced here.
  const judged = await judgedSimulator(t, { accessTokenTtlSeconds: 60 * 24 * 3600 })
  const client = serverSdk(judged.app)
  const orders = new OrdersController(client)
  const payments = new PaymentsController(client)

  const order = (await orders.createOrder({ body: orderBody(CheckoutPaymentIntent.Authorize) })).result
  judged.app.simulator.orders.approve(order.id as string)
  const authorized = await orders.authorizeOrder({ id: order.id as string, prefer: 'return=representation' })
  judge(t, judged, authorized, 'order', 'authorize')
  const authorizationId = authorized.result.purchaseUnits?.[0]?.payments?.authorizations?.[0]?.id as string
  judge(t, judged, await payments.getAuthorizedPayment({ authorizationId }), 'authorization', 'get authorization')

  const part = await payments.captureAuthorizedPayment({ authorizationId, body: { amount: { currencyCode: 'USD', value: '4.00' }, finalCapture: false }, prefer: 'return=representation' })
  judge(t, judged, part, 'capture', 'partial capture')

  const early = await payments.reauthorizePayment({ authorizationId }).catch((error: unknown) => error)
  t.ok(early instanceof ApiError && early.statusCode === 422, 'no reauthorization within the honor period')
  t.match((early as ApiError).result, { details: [{ issue: 'REAUTHORIZATION_TOO_SOON' }] })
  judged.app.simulator.clock.advance(4 * DAY)
  const renewed = await payments.reauthorizePayment({ authorizationId, body: { amount: { currencyCode: 'USD', value: '11.00' } }, prefer: 'return=representation' })
  t.equal(renewed.statusCode, 201)
  judge(t, judged, renewed, 'authorization', 'reauthorization')

  const voided = await payments.voidPayment({ authorizationId, prefer: 'return=representation' })
  t.equal(voided.statusCode, 200, 'the SDK\'s empty form body is accepted')
  judge(t, judged, voided, 'authorization', 'void')
  const minimalVoid = await payments.voidPayment({ authorizationId: renewed.result.id as string }).catch((error: unknown) => error)
  t.match((minimalVoid as ApiError).result, { details: [{ issue: 'CANNOT_BE_VOIDED' }] }, 'a reauthorization cannot be voided')
  const capture = await payments.captureAuthorizedPayment({ authorizationId: renewed.result.id as string, prefer: 'return=representation' })
  judge(t, judged, capture, 'capture', 'capture of the reauthorization')
  t.equal(capture.result.amount?.value, '11.00')
})

t.test('errors the SDK reads: 422 INSTRUMENT_DECLINED with its redirect link, 404, 400 and 422 validation', async (t) => {
  const judged = await judgedSimulator(t)
  const client = serverSdk(judged.app)
  const orders = new OrdersController(client)
  const order = (await orders.createOrder({ body: orderBody(CheckoutPaymentIntent.Capture) })).result
  judged.app.simulator.orders.approve(order.id as string, { outcome: 'declined' })
  const declined = await orders.captureOrder({ id: order.id as string }).catch((error: unknown) => error) as ApiError<Record<string, any>>
  t.equal(declined.statusCode, 422)
  t.match(declined.result, { name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'INSTRUMENT_DECLINED' }] })
  const redirect = declined.result?.links.find((link: { rel: string }) => link.rel === 'redirect')
  t.equal(redirect?.href, `${judged.app.listeningOrigin}/checkoutnow?token=${order.id as string}`)
  t.same(unservedLinks(judged, declined.result), [])
  t.equal((await orders.getOrder({ id: order.id as string })).result.status, 'APPROVED', 'the order stays APPROVED')

  const missing = await orders.getOrder({ id: 'NOPE' }).catch((error: unknown) => error) as ApiError<Record<string, any>>
  t.match({ status: missing.statusCode, body: missing.result }, { status: 404, body: { name: 'RESOURCE_NOT_FOUND' } })
  const mismatch = await orders.createOrder({ body: { intent: CheckoutPaymentIntent.Capture, purchaseUnits: [{ amount: { currencyCode: 'USD', value: '9.00', breakdown: { itemTotal: AMOUNT } } }] } })
    .catch((error: unknown) => error) as ApiError<Record<string, any>>
  t.match({ status: mismatch.statusCode, body: mismatch.result }, { status: 422, body: { details: [{ issue: 'AMOUNT_MISMATCH' }] } })
  const invalid = await orders.createOrder({ body: { intent: CheckoutPaymentIntent.Capture, purchaseUnits: [{ amount: { currencyCode: 'USD', value: 'ten' } }] } })
    .catch((error: unknown) => error) as ApiError<Record<string, any>>
  t.match({ status: invalid.statusCode, body: invalid.result }, { status: 400, body: { name: 'INVALID_REQUEST' } })
})
