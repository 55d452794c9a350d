/*
 * The demo's PayPal wiring (demo/paypal.ts): both PayPal gateways pay through the in-process
 * simulator, and each notify URL hears only its own API's webhooks.
 */
import t from 'tap'
import { request } from 'undici'
import { buildDemoShop } from '../../app.ts'
import { PAYPAL_WEBHOOK_EVENTS } from '../../demo/paypal.ts'

t.test('the demo\'s paypal gateway runs the whole redirect flow against the in-process simulator, webhooks included', async (t) => {
  const app = await buildDemoShop()
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const checkout = await request(`${address}/checkout`, { method: 'POST', body: 'amount=7.50&currency=EUR&gateway=paypal', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  await checkout.body.dump()
  const toPaypal = await request(String(checkout.headers.location))
  await toPaypal.body.dump()
  t.equal(toPaypal.statusCode, 302)
  const approvalUrl = new URL(String(toPaypal.headers.location))
  const page = await (await request(approvalUrl)).body.text()
  t.match(page, '7.50')
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] as string
  const approved = await request(new URL('/cgi-bin/webscr', approvalUrl), {
    method: 'POST', body: `cmd=_express-checkout&token=${token}&decision=approve`, headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  await approved.body.dump()
  t.equal(approved.statusCode, 302)
  t.match(String(approved.headers.location), `${address}/payment/capture/`)
  const back = await request(String(approved.headers.location))
  await back.body.dump()
  t.equal(back.statusCode, 302)
  const done = await request(String(back.headers.location))
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 750, currencyCode: 'EUR' } })

  const webhooks = app.paypalSimulator?.simulator.webhooks
  await webhooks?.waitForIdle()
  const deliveries = webhooks?.deliveries() ?? []
  t.ok(deliveries.length > 0, 'the simulator delivered webhooks to the shop')
  t.ok(deliveries.every((delivery) => delivery.attempts.at(-1)?.statusCode === 204), 'the shop verified and accepted each one')
})

t.test('the demo offers PayPal (Orders v2) beside PayPal (v1): the paypal-checkout gateway pays through the simulator', async (t) => {
  const app = await buildDemoShop()
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  t.match(await (await request(`${address}/`)).body.text(), 'paypal-checkout')
  const checkout = await request(`${address}/checkout`, { method: 'POST', body: 'amount=7.50&currency=EUR&gateway=paypal-checkout', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
  await checkout.body.dump()
  const toPaypal = await request(String(checkout.headers.location))
  await toPaypal.body.dump()
  const payerAction = new URL(String(toPaypal.headers.location))
  t.equal(payerAction.pathname, '/checkoutnow')
  const token = payerAction.searchParams.get('token') as string
  const approved = await request(new URL('/checkoutnow', payerAction), {
    method: 'POST', body: `token=${token}&decision=approve`, headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  await approved.body.dump()
  const back = await request(String(approved.headers.location))
  await back.body.dump()
  const done = await request(String(back.headers.location))
  t.match(await done.body.json(), { status: 'captured', payment: { totalAmount: 750, currencyCode: 'EUR' } })
  const webhooks = app.paypalSimulator?.simulator.webhooks
  await webhooks?.waitForIdle()
  const deliveries = webhooks?.deliveries().filter((delivery) => delivery.url.endsWith('/paypal-checkout')) ?? []
  t.same(deliveries.map((delivery) => delivery.eventType).sort(), ['CHECKOUT.ORDER.APPROVED', 'CHECKOUT.ORDER.COMPLETED', 'PAYMENT.CAPTURE.COMPLETED'])
  t.ok(deliveries.every((delivery) => delivery.attempts.at(-1)?.statusCode === 204), 'the shop verified and accepted each one')
})

t.test('each PayPal notify URL is subscribed to its own API\'s events only: no webhook about the other API\'s money', async (t) => {
  const app = await buildDemoShop({ rateLimits: false })
  t.teardown(() => app.close())
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const webhooks = app.paypalSimulator?.simulator.webhooks
  t.same(webhooks?.subscriptions().map(({ url, eventTypes }) => [url, eventTypes]), [
    [`${address}/payment/notify/unsafe/paypal`, PAYPAL_WEBHOOK_EVENTS.paypal_rest],
    [`${address}/payment/notify/unsafe/paypal-checkout`, PAYPAL_WEBHOOK_EVENTS.paypal_checkout]
  ])
  t.notOk(PAYPAL_WEBHOOK_EVENTS.paypal_rest.some((type) => (PAYPAL_WEBHOOK_EVENTS.paypal_checkout as readonly string[]).includes(type)), 'no event type goes to both')
  const unmatched: unknown[] = []
  app.paywire.on('money.unmatched', (event) => { unmatched.push(event) })
  for (const gateway of ['paypal', 'paypal-checkout']) {
    const checkout = await request(`${address}/checkout`, { method: 'POST', body: `amount=2.50&currency=EUR&gateway=${gateway}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    await checkout.body.dump()
    const toPaypal = await request(String(checkout.headers.location))
    await toPaypal.body.dump()
    const returnUrl = await approveOnPaypal(new URL(String(toPaypal.headers.location)))
    const back = await request(returnUrl)
    await back.body.dump()
    t.equal(back.statusCode, 302, `${gateway}: the buyer's return captures`)
  }
  await webhooks?.waitForIdle()
  await app.paywire.events.drain()
  const delivered = (gateway: string) => new Set(webhooks?.deliveries().filter((delivery) => delivery.url.endsWith(`/unsafe/${gateway}`)).map((delivery) => delivery.eventType))
  t.same([...delivered('paypal')].sort(), ['PAYMENT.SALE.COMPLETED', 'PAYMENTS.PAYMENT.CREATED'], 'Payments v1 events to the paypal gateway')
  t.same([...delivered('paypal-checkout')].sort(), ['CHECKOUT.ORDER.APPROVED', 'CHECKOUT.ORDER.COMPLETED', 'PAYMENT.CAPTURE.COMPLETED'], 'Orders v2 events to the paypal-checkout gateway')
  t.same(unmatched, [], 'no gateway was told about money it does not know')
})

/** The buyer's "approve" on PayPal's page: the v1 approval page's form, or v2's payer-action page. */
async function approveOnPaypal (approvalUrl: URL): Promise<string> {
  const v1 = approvalUrl.pathname === '/cgi-bin/webscr'
  const token = v1 ? /name="token" value="([^"]+)"/.exec(await (await request(approvalUrl)).body.text())?.[1] : approvalUrl.searchParams.get('token')
  const approved = await request(new URL(approvalUrl.pathname, approvalUrl), {
    method: 'POST', body: `${v1 ? 'cmd=_express-checkout&' : ''}token=${token ?? ''}&decision=approve`, headers: { 'content-type': 'application/x-www-form-urlencoded' }
  })
  await approved.body.dump()
  return String(approved.headers.location)
}

t.test('with credentials, both PayPal gateways are built for PayPal itself, and no simulator starts', async (t) => {
  const app = await buildDemoShop({ paypal: { clientId: 'id', clientSecret: 'secret', webhookId: '1JE4291016473214C', checkoutWebhookId: '8PT597110X687430L' }, stripe: false })
  t.teardown(() => app.close())
  await app.ready()
  t.equal(app.paypalSimulator, undefined)
  t.same(app.paywire.getGatewayNames(), ['offline', 'paypal', 'paypal-checkout'])
  const sandbox = await buildDemoShop({ paypal: { clientId: 'id', clientSecret: 'secret' } })
  t.teardown(() => sandbox.close())
  await sandbox.ready()
  t.ok(sandbox.paywire.hasGateway('paypal-checkout'), 'the webhook ids are optional')
})
