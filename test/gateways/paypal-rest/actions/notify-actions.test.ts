import t from 'tap'
import {
  NotifyAction, PaymentDetails, PaypalRestApi, PaypalRestConfig, PaypalRestGatewayFactory, PaypalViews, PaypalWebhookNotify
} from '../../../../gateways/paypal-rest/index.ts'
import {
  ArrayObject, HttpResponse, Identity, MemoryStorage, MemoryTokenStorage, Notify, Payment, PaywireBuilder, StatusTransitions, runWithHttpRequest,
  type Paywire
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
  }, () => paywire.receiveNotification(GATEWAY))
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

t.test('money with no home: an event for a payment the shop does not know is logged at error, emitted and acknowledged', async (t) => {
  const engine = await setup(t)
  const unmatched: unknown[] = []
  engine.paywire.on('money.unmatched', (event) => { unmatched.push(event) })
  const events = [
    { id: 'WH-A', event_type: 'PAYMENT.SALE.COMPLETED', resource_type: 'sale', resource: { id: 'SALE1', parent_payment: 'PAYID-NOPE0000000000000000000', amount: { total: '19.99', currency: 'EUR' }, payer: { email: 'buyer@example.com' } } },
    { id: 'WH-B', event_type: 'VAULT.CREDIT-CARD.CREATED' },
    { id: 'WH-C', event_type: 'PAYMENT.SALE.REFUNDED', resource_type: 'refund', resource: { id: 'REF1', sale_id: 'SALE2', parent_payment: 'PAYID-NOPE1111111111111111111' } },
    { id: 'WH-D', resource: { id: 'R9', parent_payment: 'PAYID-NOPE2222222222222222222', amount: { total: 1 } } }
  ]
  for (const event of events) {
    const body = JSON.stringify(event)
    t.equal(await notify(engine.paywire, body, { ...await engine.paypal.simulator.webhooks.sign(body, { webhookId: engine.webhookId }) }), undefined, 'acknowledged')
  }
  t.match(engine.logger.lines.filter((line) => /PayPal notif/.test(line.message ?? '')), [
    { level: 'error', message: /does not know/, fields: { paywire: { gateway: GATEWAY, provider: 'PayPal', event: 'WH-A', type: 'PAYMENT.SALE.COMPLETED', payment: 'PAYID-NOPE0000000000000000000', sale: 'SALE1' } } },
    { level: 'info', message: /about no payment/, fields: { paywire: { event: 'WH-B' } } },
    { level: 'error', fields: { paywire: { event: 'WH-C', refund: 'REF1', sale: 'SALE2', payment: 'PAYID-NOPE1111111111111111111' } } },
    { level: 'error', fields: { paywire: { event: 'WH-D' } } }
  ])
  t.notMatch(engine.logger.text(), 'buyer@example.com', 'no payer data in the logs')
  await engine.paywire.events.drain()
  // Delivered from the outbox: each with an event id of its own (one partition each, so in no set order).
  unmatched.sort((a: any, b: any) => a.eventId.localeCompare(b.eventId))
  t.match(unmatched, [{ type: 'money.unmatched', id: /^[0-9a-f-]{36}$/ }, { type: 'money.unmatched' }, { type: 'money.unmatched' }])
  t.same(unmatched.map(({ id: _id, type: _type, occurredAt: _at, ...notification }: any) => notification), [
    { gateway: GATEWAY, provider: 'PayPal', eventId: 'WH-A', eventType: 'PAYMENT.SALE.COMPLETED', resourceIds: { payment: 'PAYID-NOPE0000000000000000000', sale: 'SALE1' }, amount: { value: '19.99', currency: 'EUR' } },
    { gateway: GATEWAY, provider: 'PayPal', eventId: 'WH-C', eventType: 'PAYMENT.SALE.REFUNDED', resourceIds: { payment: 'PAYID-NOPE1111111111111111111', refund: 'REF1', sale: 'SALE2' } },
    { gateway: GATEWAY, provider: 'PayPal', eventId: 'WH-D', resourceIds: { payment: 'PAYID-NOPE2222222222222222222', resource: 'R9' } }
  ])
  t.equal(lookups(engine), 0)
})

t.test('the REST details record is found by PayPal\'s id', async (t) => {
  const engine = await setup(t)
  const prepared = await preparePayment(engine.paywire)
  await approveAndReturn(engine, prepared, 'pending')
  const paypalPayment = (await reload(engine.paywire, prepared.payment)).details
  const details = Object.assign(new PaymentDetails(), { id: paypalPayment.id, state: 'approved', transactions: paypalPayment.transactions })
  await engine.paywire.getStorage(Payment).delete(await reload(engine.paywire, prepared.payment))
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

t.test('PayPal\'s view is taken through the transitions; the last 50 event ids are remembered', async (t) => {
  const engine = await setup(t)
  const prepared = await preparePayment(engine.paywire)
  await approveAndReturn(engine, prepared)
  const config = new PaypalRestConfig({
    gatewayName: GATEWAY, clientId: engine.client.clientId, clientSecret: engine.client.clientSecret, configPath: '', config: { 'service.EndPoint': engine.endpoint }, webhookId: engine.webhookId, webhookVerification: 'online'
  })
  const action = new NotifyAction(new PaypalRestApi(config, engine.http, engine.logger), new PaypalViews(new StatusTransitions(), engine.logger, config))
  const paid = (await reload(engine.paywire, prepared.payment)).details
  // The shop's record says refunded; PayPal's current view (completed) is older news.
  const record = new ArrayObject(structuredClone({ ...paid, transactions: [{ related_resources: [{ sale: { ...saleOf(paid), state: 'refunded' } }] }] }))
  t.ok(action.supports(new PaypalWebhookNotify(record, { id: 'WH-0' })))
  t.ok(action.supports(new PaypalWebhookNotify(new Identity('gone', 'Payment'), { id: 'WH-0' })), 'a payment deleted meanwhile is answered, not refused')
  t.notOk(action.supports(new PaypalWebhookNotify(new Payment(), { id: 'WH-0' })), 'a Payment is unwrapped to its details first')
  t.notOk(action.supports(new Notify(record)))
  await action.execute(new PaypalWebhookNotify(new Identity('gone', 'Payment'), { id: 'WH-0' }))
  await action.execute(new PaypalWebhookNotify(record, { id: 'WH-0' }))
  t.equal(saleOf(record.data).state, 'refunded', 'a late "completed" does not undo a refund')
  for (let n = 1; n <= 55; n++) await action.execute(new PaypalWebhookNotify(record, { id: `WH-${n}` }))
  const seen = record.data.paywire_webhook_events as string[]
  t.equal(seen.length, 50)
  t.equal(seen[0], 'WH-6')
  t.equal(seen.at(-1), 'WH-55')
  const calls = lookups(engine)
  await action.execute(new PaypalWebhookNotify(record, { id: 'WH-55' }))
  t.equal(lookups(engine), calls, 'an event already processed changes nothing and costs no call')
  t.equal((record.data.paywire_webhook_events as string[]).length, 50)

  // Reversals are kept as PayPal's verified events tell them: once each, whatever they carry.
  const reversal = (id: string, resource?: Record<string, unknown>) => new PaypalWebhookNotify(record, { id, event_type: 'PAYMENT.SALE.REVERSED', resource })
  await action.execute(reversal('WH-R0'))
  await action.execute(reversal('WH-R1', { id: 'X1', amount: { total: '-19.99', currency: 'EUR' }, reason_code: 'CHARGEBACK', sale_id: 'S1' }))
  await action.execute(reversal('WH-R2', { id: 'X1', amount: { total: '-19.99', currency: 'EUR' } }))
  await action.execute(reversal('WH-R3', { id: 'X2', amount: { total: 5 }, reason_code: 7 }))
  t.same(record.data.paywire_reversals, [
    { id: 'X1', amount: { total: '19.99', currency: 'EUR' }, reason_code: 'CHARGEBACK', sale_id: 'S1' },
    { id: 'X2' }
  ])
})
