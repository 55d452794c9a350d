import t from 'tap'
import { NotifyAction, PaymentDetails, PaypalRestGatewayFactory, PaypalWebhookNotify } from '../../../../gateways/paypal-rest/index.ts'
import {
  ArrayObject, HttpResponse, MemoryStorage, MemoryTokenStorage, Notify, Payment, PaywireBuilder, runWithHttpRequest, type Paywire
} from '../../../../plugins/core/index.ts'
import { approveAndReturn, engineSetup, preparePayment, reload, statusOf, type EngineSetup } from '../fixtures/paywire.ts'
import type { Teardown } from '../fixtures/recorders.ts'
import { GATEWAY, heldDelivery, saleOf } from '../fixtures/shop.ts'

/** The simulator holds its deliveries: each test hands them to the gateway itself. */
async function setup (t: Teardown): Promise<EngineSetup & { webhookId: string }> {
  const engine = await engineSetup(t)
  const webhookId = engine.paypal.simulator.webhooks.subscribe({ url: 'http://127.0.0.1:9/hooks', clientId: engine.client.clientId }).id
  engine.paypal.simulator.webhooks.pause()
  engine.paywire.addGateway(GATEWAY, { factory: 'paypal_rest', webhook_id: webhookId })
  return { ...engine, webhookId }
}

async function notify (paywire: Paywire, body: string, headers: Record<string, string>): Promise<unknown> {
  return await runWithHttpRequest({
    method: 'POST', uri: `/payment/notify/unsafe/${GATEWAY}`, query: {}, request: {}, content: body, headers, clientIp: '127.0.0.1', userAgent: 'PayPal'
  }, () => paywire.getGateway(GATEWAY).execute(new Notify(null), { catchReply: true }))
}

async function held (engine: EngineSetup, eventType: string): Promise<{ body: string, headers: Record<string, string>, eventId: string }> {
  const delivery = await heldDelivery(engine.paypal, eventType)
  return { body: delivery.body, headers: { ...delivery.headers }, eventId: delivery.eventId }
}

const lookups = (engine: EngineSetup) => engine.http.requests.filter((request) => request.method === 'GET' && request.url.includes('/v1/payments/payment/')).length

t.test('a verified event moves its payment forward; the same event again is not processed', async (t) => {
  const engine = await setup(t)
  const prepared = await preparePayment(engine.paywire)
  await approveAndReturn(engine, prepared, 'pending')
  engine.paypal.simulator.settleSale(saleOf((await reload(engine.paywire, prepared.payment)).details).id, 'completed')
  const completed = await held(engine, 'PAYMENT.SALE.COMPLETED')

  t.equal(await notify(engine.paywire, completed.body, completed.headers), undefined)
  t.equal(await statusOf(engine.paywire, prepared.payment), 'captured')
  t.same((await reload(engine.paywire, prepared.payment)).details.paywire_webhook_events.slice(-1), [completed.eventId])

  const before = lookups(engine)
  t.equal(await notify(engine.paywire, completed.body, completed.headers), undefined)
  t.equal(lookups(engine), before, 'a duplicate costs no PayPal call')
})

t.test('not an event, or not verified: 400 before anything is looked up', async (t) => {
  const engine = await setup(t)
  const notEvent = await notify(engine.paywire, '{"event_type":"PAYMENT.SALE.COMPLETED"}', {})
  t.ok(notEvent instanceof HttpResponse)
  t.match(notEvent, { statusCode: 400, content: 'Not a PayPal webhook event.', headers: { 'content-type': 'text/plain; charset=utf-8' } })
  t.match(await notify(engine.paywire, '{"id":"WH-1"}', {}), { statusCode: 400, content: 'Webhook signature verification failed.' })
  t.same(engine.http.requests, [])
})

t.test('events for payments the shop does not know are acknowledged and logged', async (t) => {
  const engine = await setup(t)
  for (const event of [{ id: 'WH-A', event_type: 'PAYMENT.SALE.COMPLETED', resource: { parent_payment: 'PAYID-NOPE0000000000000000000' } }, { id: 'WH-B', event_type: 'VAULT.CREDIT-CARD.CREATED' }]) {
    const body = JSON.stringify(event)
    t.equal(await notify(engine.paywire, body, { ...await engine.paypal.simulator.webhooks.sign(body, { webhookId: engine.webhookId }) }), undefined)
  }
  t.match(engine.logger.lines.filter((line) => line.message?.startsWith('PayPal webhook for no known payment')), [
    { level: 'info', fields: { paypal: { event: 'WH-A', type: 'PAYMENT.SALE.COMPLETED' } } },
    { level: 'info', fields: { paypal: { event: 'WH-B' } } }
  ])
  t.equal(lookups(engine), 0)
})

t.test('the REST details record is found by PayPal\'s id', async (t) => {
  const engine = await setup(t)
  const prepared = await preparePayment(engine.paywire)
  await approveAndReturn(engine, prepared, 'pending')
  const paypalPayment = (await reload(engine.paywire, prepared.payment)).details
  const details = Object.assign(new PaymentDetails(), { id: paypalPayment.id, state: 'approved', transactions: paypalPayment.transactions })
  await engine.paywire.getStorage(Payment).delete(prepared.payment)
  await engine.paywire.getStorage(PaymentDetails).update(details)
  engine.paypal.simulator.settleSale(saleOf(paypalPayment).id, 'completed')
  const completed = await held(engine, 'PAYMENT.SALE.COMPLETED')
  await notify(engine.paywire, completed.body, completed.headers)
  t.equal(saleOf(await engine.paywire.getStorage(PaymentDetails).find(details.idStorage as string) as PaymentDetails).state, 'completed')
  const before = lookups(engine)
  await notify(engine.paywire, completed.body, completed.headers)
  t.equal(lookups(engine), before, 'its duplicates are dropped too')
})

t.test('a payment deleted while its event is processed is not brought back', async (t) => {
  const engine = await setup(t)
  const prepared = await preparePayment(engine.paywire)
  await approveAndReturn(engine, prepared, 'pending')
  const stored = await reload(engine.paywire, prepared.payment)
  engine.paypal.simulator.settleSale(saleOf(stored.details).id, 'completed')
  const completed = await held(engine, 'PAYMENT.SALE.COMPLETED')
  let deleted: Promise<void> | undefined
  engine.http.script = (request) => {
    if (request.method === 'GET') deleted ??= engine.paywire.getStorage(Payment).delete(stored)
    return undefined
  }
  t.equal(await notify(engine.paywire, completed.body, completed.headers), undefined)
  await deleted
  t.same(await engine.paywire.getStorage(Payment).findBy({}), [])
})

t.test('without a storage for one kind of record, the other is still searched', async (t) => {
  const engine = await setup(t)
  const onlyPayments = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .setTokenStorage(new MemoryTokenStorage())
    .addStorage(Payment, new MemoryStorage(Payment))
    .addGatewayFactory('paypal_rest', new PaypalRestGatewayFactory())
    .addGateway(GATEWAY, { factory: 'paypal_rest', client_id: engine.client.clientId, client_secret: engine.client.clientSecret, webhook_id: engine.webhookId, config: { 'service.EndPoint': engine.endpoint } })
    .getPaywire()
  const onlyDetails = new PaywireBuilder()
    .setBaseUrl('https://shop.example')
    .setTokenStorage(new MemoryTokenStorage())
    .addStorage(PaymentDetails, new MemoryStorage(PaymentDetails, { idProperty: 'idStorage' }))
    .addGatewayFactory('paypal_rest', new PaypalRestGatewayFactory())
    .addGateway(GATEWAY, { factory: 'paypal_rest', client_id: engine.client.clientId, client_secret: engine.client.clientSecret, webhook_id: engine.webhookId, config: { 'service.EndPoint': engine.endpoint } })
    .getPaywire()
  t.teardown(async () => { await onlyPayments.close(); await onlyDetails.close() })
  const body = JSON.stringify({ id: 'WH-C', resource_type: 'payment', resource: { id: 'PAYID-NOPE0000000000000000000' } })
  const headers = { ...await engine.paypal.simulator.webhooks.sign(body, { webhookId: engine.webhookId }) }
  t.equal(await notify(onlyPayments, body, headers), undefined)
  t.equal(await notify(onlyDetails, body, headers), undefined)
})

t.test('PayPal\'s view is taken only when it moves the payment forward; the last 50 event ids are remembered', async (t) => {
  const action = new NotifyAction()
  const record = new ArrayObject({ id: 'PAYID-1', state: 'approved', transactions: [{ related_resources: [{ sale: { state: 'refunded' } }] }] })
  const stale = { id: 'PAYID-1', state: 'approved', transactions: [{ related_resources: [{ sale: { state: 'completed' } }] }] }
  t.ok(action.supports(new PaypalWebhookNotify(record, { id: 'WH-0' }, stale)))
  t.notOk(action.supports(new PaypalWebhookNotify(new Payment(), { id: 'WH-0' }, stale)), 'a Payment is unwrapped to its details first')
  t.notOk(action.supports(new Notify(record)))
  action.execute(new PaypalWebhookNotify(record, { id: 'WH-0' }, stale))
  t.match(record.data, { transactions: [{ related_resources: [{ sale: { state: 'refunded' } }] }] }, 'a late "completed" does not undo a refund')
  for (let n = 1; n <= 55; n++) action.execute(new PaypalWebhookNotify(record, { id: `WH-${n}` }, stale))
  const seen = record.data.paywire_webhook_events as string[]
  t.equal(seen.length, 50)
  t.equal(seen[0], 'WH-6')
  t.equal(seen.at(-1), 'WH-55')
  action.execute(new PaypalWebhookNotify(record, { id: 'WH-55' }, { id: 'PAYID-1', state: 'failed' }))
  t.equal(record.data.state, 'approved', 'an event already processed changes nothing')
  t.equal((record.data.paywire_webhook_events as string[]).length, 50)
})
