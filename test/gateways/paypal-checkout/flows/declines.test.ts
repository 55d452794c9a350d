import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import t from 'tap'
import type { Teardown } from '../../paypal-rest/fixtures/recorders.ts'
import { GATEWAY, checkout, comeBack, startCheckoutShop, storedPayment, visit } from '../fixtures/shop.ts'
import { listenOnLoopback } from '../../../helpers/loopback-server.ts'

/*
 * Recoverable declines as PayPal itself answers them, replayed from a plain loopback server that is
 * not the simulator: whatever the simulator does, the gateway must follow PayPal's own answers.
 *
 * - The 422 INSTRUMENT_DECLINED body is PayPal's, as recorded from the sandbox in
 *   https://paypal-community.com/t5/Sandbox-Environment/UNPROCESSABLE-ENTITY/td-p/3120483: `details[].issue`,
 *   and `links` with `information_link` and `redirect` (`https://www.sandbox.paypal.com/checkoutnow?token=<order id>`).
 * - After it the order still reads APPROVED, with the links of an approved order (self, update, capture) and no
 *   `payer-action`: PayPal's "Handle funding failures" has the merchant restart the payment so the payer picks
 *   another way to pay (https://developer.paypal.com/docs/checkout/standard/customize/handle-funding-failures/).
 * - Create answers `PAYER_ACTION_REQUIRED` with `payer-action` for an order with `payment_source.paypal`
 *   (https://developer.paypal.com/docs/api/orders/v2/#orders_create).
 */

const SANDBOX_API = 'https://api.sandbox.paypal.com'
const SANDBOX_CHECKOUT = 'https://www.sandbox.paypal.com/checkoutnow'
// Order ids of PayPal's own samples and recorded answers.
const ORDER_IDS = ['2GG04258RD4047935', '9FS050679L624391C']

interface ReplayedOrder {
  id: string
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED'
  purchaseUnit: Record<string, any>
  /** What the next capture meets: PayPal's recorded 422 (with or without its redirect link) or a completed capture. */
  instrument: 'declined' | 'declined-without-redirect' | 'good'
  captureCalls: number
}

interface Replay {
  url: string
  orders: ReplayedOrder[]
}

function send (response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'paypal-debug-id': 'fa9ffe64391d4' }).end(JSON.stringify(body))
}

function orderView (order: ReplayedOrder): Record<string, unknown> {
  const self = `${SANDBOX_API}/v2/checkout/orders/${order.id}`
  const links = [{ href: self, rel: 'self', method: 'GET' }]
  if (order.status === 'PAYER_ACTION_REQUIRED') links.push({ href: `${SANDBOX_CHECKOUT}?token=${order.id}`, rel: 'payer-action', method: 'GET' })
  if (order.status === 'APPROVED') links.push({ href: self, rel: 'update', method: 'PATCH' }, { href: `${self}/capture`, rel: 'capture', method: 'POST' })
  const view: Record<string, unknown> = {
    id: order.id,
    intent: 'CAPTURE',
    status: order.status,
    purchase_units: [order.purchaseUnit],
    create_time: '2026-11-28T03:00:00Z',
    links
  }
  if (order.status !== 'PAYER_ACTION_REQUIRED') {
    view.payer = { name: { given_name: 'John', surname: 'Doe' }, email_address: 'sb-buyer@personal.example.com', payer_id: 'QYR5Z8XDVJNXQ', address: { country_code: 'US' } }
  }
  return view
}

function capture (order: ReplayedOrder, response: ServerResponse): void {
  order.captureCalls++
  if (order.instrument !== 'good') {
    const refusal: Record<string, unknown> = {
      name: 'UNPROCESSABLE_ENTITY',
      details: [{ issue: 'INSTRUMENT_DECLINED', description: 'The instrument presented was either declined by the processor or bank, or it can\'t be used for this payment.' }],
      message: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
      debug_id: 'fa9ffe64391d4'
    }
    // The recorded answer's links; checkout_orders_v2.json's error schema makes `links` optional, so the other variant has none.
    if (order.instrument === 'declined') {
      refusal.links = [
        { href: 'https://developer.paypal.com/docs/api/orders/v2/#error-INSTRUMENT_DECLINED', rel: 'information_link', method: 'GET' },
        { href: `${SANDBOX_CHECKOUT}?token=${order.id}`, rel: 'redirect', method: 'GET' }
      ]
    }
    send(response, 422, refusal)
    return
  }
  order.status = 'COMPLETED'
  order.purchaseUnit.payments = {
    captures: [{
      id: '7913490945804003T',
      status: 'COMPLETED',
      amount: order.purchaseUnit.amount,
      final_capture: true,
      custom_id: order.purchaseUnit.custom_id,
      invoice_id: order.purchaseUnit.invoice_id,
      create_time: '2026-11-28T03:01:00Z',
      links: [
        { href: `${SANDBOX_API}/v2/payments/captures/7913490945804003T`, rel: 'self', method: 'GET' },
        { href: `${SANDBOX_API}/v2/checkout/orders/${order.id}`, rel: 'up', method: 'GET' }
      ]
    }]
  }
  send(response, 201, orderView(order))
}

/** PayPal's answers for the calls a capture journey makes, one order id after the other. */
async function startReplay (t: Teardown): Promise<Replay> {
  const orders: ReplayedOrder[] = []
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const path = request.url as string
      if (path === '/v1/oauth2/token') {
        send(response, 200, { scope: 'https://uri.paypal.com/services/payments/payment', access_token: 'A21AAReplayed', token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: 32400, nonce: '2026-11-28T03:00:00Zreplayed' })
        return
      }
      if (request.method === 'POST' && path === '/v2/checkout/orders') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
        const order: ReplayedOrder = { id: ORDER_IDS[orders.length] as string, status: 'PAYER_ACTION_REQUIRED', purchaseUnit: { reference_id: 'default', ...body.purchase_units[0] }, instrument: 'declined', captureCalls: 0 }
        orders.push(order)
        send(response, 200, { ...orderView(order), payment_source: { paypal: {} } })
        return
      }
      const match = /^\/v2\/checkout\/orders\/([^/]+)(\/capture)?$/.exec(path)
      const order = orders.find((candidate) => candidate.id === match?.[1])
      if (order === undefined) {
        send(response, 404, { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', details: [{ issue: 'INVALID_RESOURCE_ID' }] })
      } else if (match?.[2] === '/capture') {
        capture(order, response)
      } else {
        send(response, 200, orderView(order))
      }
    })
  })
  const port = await listenOnLoopback(t, server)
  return { url: `http://127.0.0.1:${port}`, orders }
}

t.test('PayPal\'s recorded INSTRUMENT_DECLINED, replayed: the buyer follows its redirect link, never gets JSON', async (t) => {
  const shop = await startCheckoutShop(t)
  const replay = await startReplay(t)
  shop.app.paywire.addGateway(GATEWAY, { ...shop.gatewayOptions, config: { 'service.EndPoint': replay.url, 'http.RetryBackoffMs': 1 } })

  t.test('the order stays APPROVED; the buyer goes back by the 422\'s redirect, then pays with another instrument', async (t) => {
    const { id, captureUrl } = await checkout(shop)
    const toPaypal = await visit(captureUrl)
    t.equal(toPaypal.location, `${SANDBOX_CHECKOUT}?token=${ORDER_IDS[0]}`, 'to the payer-action link')
    const order = replay.orders[0] as ReplayedOrder
    order.status = 'APPROVED'
    const returnUrl = `${captureUrl}?token=${order.id}&PayerID=QYR5Z8XDVJNXQ`

    const declined = await visit(returnUrl)
    t.equal(declined.status, 302, 'a redirect, not a 402 JSON answer')
    t.equal(declined.location, `${SANDBOX_CHECKOUT}?token=${order.id}`, 'the 422\'s redirect link: the approved order names no other way back')
    t.match((await storedPayment(shop, id)).details, {
      status: 'APPROVED', error: { issue: 'INSTRUMENT_DECLINED', code: 'PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED', debug_id: 'fa9ffe64391d4' }
    })
    const reload = await visit(captureUrl)
    t.equal(reload.location, declined.location, 'back at the shop without choosing: sent to PayPal again')
    t.equal(order.captureCalls, 1, 'and the refused instrument is not tried again')

    order.instrument = 'good'
    const done = await comeBack(returnUrl)
    t.match(done, { status: 'captured', payment: { totalAmount: 1999, currencyCode: 'EUR' } })
    t.equal(order.captureCalls, 2)
    const { details } = await storedPayment(shop, id)
    t.notOk('error' in details)
    t.notOk('paywire_payer_redirect' in details)
  })

  t.test('a 422 without links on an approved order: nowhere to send the buyer, the coded 402', async (t) => {
    const { id, captureUrl } = await checkout(shop)
    await visit(captureUrl)
    const order = replay.orders[1] as ReplayedOrder
    order.status = 'APPROVED'
    order.instrument = 'declined-without-redirect'
    const refused = await visit(`${captureUrl}?token=${order.id}&PayerID=QYR5Z8XDVJNXQ`, { headers: { accept: 'application/json' } })
    t.equal(refused.status, 402)
    t.match(JSON.parse(refused.body), { code: 'PAYWIRE_ERR_PAYPAL_INSTRUMENT_DECLINED' })
    t.match((await storedPayment(shop, id)).details, { status: 'APPROVED', error: { issue: 'INSTRUMENT_DECLINED' } })
    t.notOk('paywire_payer_redirect' in (await storedPayment(shop, id)).details)
  })
})
