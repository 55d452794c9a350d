import { createServer } from 'node:http'
import t from 'tap'
import { UndiciHttpClient } from '../../../plugins/core/engine/index.ts'
import { PaypalRestConfig } from '../../../gateways/paypal-shared/index.ts'
import { PaypalRestApi } from '../../../gateways/paypal-rest/api.ts'
import { RestWebhookLocator } from '../../../gateways/paypal-rest/webhook-locator.ts'
import { CapturingLogger } from './fixtures/recorders.ts'
import { listenOnLoopback } from '../../helpers/loopback-server.ts'

/*
 * Where a Payments v1 event's payment is, against a plain loopback server. PAYMENT.SALE.REVERSED's
 * resource, as PayPal's sample has it (https://developer.paypal.com/api/rest/webhooks/event-names/#sales),
 * names no payment: only its self link to /v1/payments/refund/{id}, which is asked.
 */

const asked: string[] = []
const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    const url = request.url as string
    asked.push(url)
    const body = url === '/v1/oauth2/token'
      ? { access_token: 'A21AA-token', token_type: 'Bearer', expires_in: 32400 }
      : { id: 'REV-1', state: 'completed', amount: { total: '-10.00', currency: 'USD' }, sale_id: 'SALE-1', parent_payment: 'PAY-1' }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  })
})
const port = await listenOnLoopback(t, server)
const http = new UndiciHttpClient()
t.teardown(async () => { await http.close() })
const api = new PaypalRestApi(new PaypalRestConfig({
  gatewayName: 'paypal',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  configPath: '',
  webhookId: '',
  webhookVerification: 'online',
  config: { 'service.EndPoint': `http://127.0.0.1:${port}`, 'http.RetryBackoffMs': 0 }
}), http, new CapturingLogger())
const locator = new RestWebhookLocator(api)

t.test('a reversal naming no payment: its self link is asked for the sale and the payment', async (t) => {
  const location = await locator.locate({
    id: 'WH-1',
    event_type: 'PAYMENT.SALE.REVERSED',
    resource_type: 'sale',
    resource: { id: 'REV-1', state: 'completed', amount: { total: '-10.00', currency: 'USD' }, links: [{ href: 'https://api.paypal.com/v1/payments/refund/REV-1', rel: 'self', method: 'GET' }] }
  })
  t.same(asked.filter((url) => url !== '/v1/oauth2/token'), ['/v1/payments/refund/REV-1'])
  t.same(location.resourceIds, { payment: 'PAY-1', sale: 'SALE-1' })
  t.match(location.lookups, [{ criteria: { 'details.id': 'PAY-1' } }, { criteria: { id: 'PAY-1' } }])
})

t.test('nothing is asked when the resource names its payment, has no id, or links to no refund', async (t) => {
  asked.length = 0
  const sale = await locator.locate({ id: 'WH-2', event_type: 'PAYMENT.SALE.COMPLETED', resource_type: 'sale', resource: { id: 'SALE-1', parent_payment: 'PAY-1' } })
  t.same(sale.resourceIds, { payment: 'PAY-1', sale: 'SALE-1' })
  const nameless = await locator.locate({ id: 'WH-3', event_type: 'PAYMENT.SALE.REVERSED', resource_type: 'sale', resource: { links: [{ rel: 'self', href: 'https://api.paypal.com/v1/payments/refund/X' }] } })
  t.same(nameless, { resourceIds: {}, lookups: [] })
  const unlinked = await locator.locate({ id: 'WH-4', event_type: 'PAYMENT.SALE.REVERSED', resource_type: 'sale', resource: { id: 'REV-2', links: 'none' } })
  t.same(unlinked, { resourceIds: {}, lookups: [] })
  const otherLink = await locator.locate({ id: 'WH-5', event_type: 'PAYMENT.SALE.REVERSED', resource_type: 'sale', resource: { id: 'REV-3', links: [{ rel: 'self', href: 'https://api.paypal.com/v1/payments/sale/REV-3' }, { rel: 'up' }] } })
  t.same(otherLink, { resourceIds: {}, lookups: [] })
  t.same(asked, [], 'PayPal was not asked')
})
