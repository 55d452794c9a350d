import http, { Agent } from 'node:http'
import type { Socket } from 'node:net'
import { createRequire } from 'node:module'
import t from 'tap'
import { CLIENT, judgedSimulator, unservedLinks } from './fixtures.ts'

/*
 * PayPal's legacy Node SDK (paypal-rest-sdk 1.8) drives Payments v1: create (POST /v1/payments/payment/,
 * with the SDK's trailing slash), get, execute, sale get and refund, refund get, webhooks list. Its
 * `schema: 'http'` and `port` options reach the simulator; its `host` option is overwritten by the mode's
 * host in 1.8.1 (PayPal-node-SDK issue #326), so this process's default HTTP agent connects that host to loopback.
 */
const require = createRequire(import.meta.url)
const paypal = require('paypal-rest-sdk') as typeof import('paypal-rest-sdk')

type Callback<T> = (error: any, response: T) => void
function promised<T> (call: (callback: Callback<T>) => void): Promise<T> {
  return new Promise((resolve, reject) => call((error, response) => error === null || error === undefined ? resolve(response) : reject(error)))
}

class LoopbackAgent extends Agent {
  override createConnection (options: Record<string, unknown>, callback?: (error: Error | null, socket: Socket) => void): Socket {
    // @ts-expect-error Agent.prototype.createConnection is Node's public extension point, absent from @types/node
    return super.createConnection({ ...options, host: '127.0.0.1' }, callback) as Socket
  }
}

// v1's enums (payments_payment_v1.json), read from the SDK's answers: the legacy SDK has no models of its own.
const PAYMENT_STATES = ['created', 'approved', 'failed']
const SALE_STATES = ['completed', 'partially_refunded', 'pending', 'refunded', 'denied']
const REFUND_STATES = ['pending', 'completed', 'cancelled', 'failed']

t.test('the legacy SDK creates, approves, executes, reads, refunds (pending, then settled) and lists webhooks', async (t) => {
  const judged = await judgedSimulator(t)
  const previous = http.globalAgent
  http.globalAgent = new LoopbackAgent()
  t.teardown(() => { http.globalAgent = previous })
  const port = new URL(judged.app.listeningOrigin).port
  paypal.configure({ mode: 'sandbox', schema: 'http', port, client_id: CLIENT.clientId, client_secret: CLIENT.clientSecret } as never)
  judged.app.simulator.webhooks.subscribe({ url: 'https://shop.test/paypal/webhooks', clientId: CLIENT.clientId })

  const created = await promised<any>((callback) => paypal.payment.create({
    intent: 'sale',
    payer: { payment_method: 'paypal' },
    redirect_urls: { return_url: 'https://shop.test/return', cancel_url: 'https://shop.test/cancel' },
    transactions: [{ amount: { total: '7.00', currency: 'USD' }, description: 'Mug' }]
  } as never, callback))
  t.equal(created.httpStatusCode, 201, 'POST /v1/payments/payment/ (trailing slash) is served')
  t.ok(PAYMENT_STATES.includes(created.state))
  t.same(unservedLinks(judged, { links: created.links.filter((link: { method: string }) => link.method !== 'REDIRECT') }), [])

  const { payerId } = judged.app.simulator.approve(created.id)
  t.match(payerId, /^[2-9A-HJ-NP-Z]{13}$/, 'a payer id in PayPal\'s alphabet')
  const executed = await promised<any>((callback) => paypal.payment.execute(created.id, { payer_id: payerId }, callback))
  t.equal(executed.state, 'approved')
  const sale = executed.transactions[0].related_resources[0].sale
  t.ok(SALE_STATES.includes(sale.state))
  t.same(unservedLinks(judged, executed), [])
  const got = await promised<any>((callback) => paypal.payment.get(created.id, callback))
  t.equal(got.id, created.id)

  judged.app.simulator.queueRefundOutcome('pending')
  const pending = await promised<any>((callback) => paypal.sale.refund(sale.id, { amount: { total: '2.00', currency: 'USD' } }, callback))
  t.equal(pending.state, 'pending')
  t.ok(REFUND_STATES.includes(pending.state))
  t.equal((await promised<any>((callback) => paypal.sale.get(sale.id, callback))).state, 'completed', 'a pending refund moves nothing yet')
  judged.app.simulator.settleRefund(pending.id, 'completed')
  const refund = await promised<any>((callback) => paypal.refund.get(pending.id, callback))
  t.equal(refund.state, 'completed')
  t.same(unservedLinks(judged, refund), [])
  t.equal((await promised<any>((callback) => paypal.sale.get(sale.id, callback))).state, 'partially_refunded')

  const webhooks = await promised<any>((callback) => paypal.notification.webhook.list(callback))
  t.equal(webhooks.webhooks.length, 1)
  t.same(unservedLinks(judged, webhooks), [])
  const refused = await promised<any>((callback) => paypal.sale.refund(sale.id, { amount: { total: '9.00', currency: 'USD' } }, callback)).catch((error: any) => error)
  t.match({ status: refused.httpStatusCode, name: refused.response.name }, { status: 400, name: 'TRANSACTION_REFUSED' })

  // A chargeback: the sale stays in one of v1's states, and the reversal's self link reads as a v1 refund.
  judged.app.simulator.reverseSale(sale.id)
  const reversedSale = await promised<any>((callback) => paypal.sale.get(sale.id, callback))
  t.ok(SALE_STATES.includes(reversedSale.state), `a reversed sale is ${String(reversedSale.state)}, one of v1's sale states`)
  t.equal(reversedSale.reason_code, 'CHARGEBACK')
  const [reversed] = judged.app.simulator.webhooks.events().filter((event) => event.event_type === 'PAYMENT.SALE.REVERSED')
  const reversal = await promised<any>((callback) => paypal.refund.get(String((reversed?.resource as { id: string }).id), callback))
  t.ok(REFUND_STATES.includes(reversal.state))
  t.equal(reversal.sale_id, sale.id)
  t.same(unservedLinks(judged, reversal), [])
})
