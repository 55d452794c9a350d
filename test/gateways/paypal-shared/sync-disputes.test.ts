import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { UndiciHttpClient } from '../../../plugins/core/engine/index.ts'
import { PaypalRestClient, PaypalRestConfig, disputeOfEvent, isDisputeNews, syncDisputes } from '../../../gateways/paypal-shared/index.ts'
import { CapturingLogger } from '../paypal-rest/fixtures/recorders.ts'

/*
 * What Sync asks PayPal about disputes, against a plain loopback server answering as the Disputes API's
 * reference shows: "List disputes" (https://developer.paypal.com/api/customer-disputes/v1/disputes-list,
 * summary fields only) and "Show dispute details" (https://developer.paypal.com/api/customer-disputes/v1/disputes-get).
 */

const asked: string[] = []
let listing: unknown = {}
let listingStatus = 200
let showStatus = 200
const full: Record<string, unknown> = {}
const server = createServer((request, response: ServerResponse) => {
  request.resume()
  request.on('end', () => {
    const url = request.url as string
    asked.push(url)
    const send = (body: unknown, status = 200): void => { response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)) }
    if (url === '/v1/oauth2/token') send({ access_token: 'A21AA-token', token_type: 'Bearer', expires_in: 32400 })
    else if (url.startsWith('/v1/customer/disputes?')) send(listing, listingStatus)
    else send(full[url.slice('/v1/customer/disputes/'.length)], showStatus)
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const http = new UndiciHttpClient()
t.teardown(async () => {
  await http.close()
  await new Promise((resolve) => server.close(resolve))
})
const logger = new CapturingLogger()
const client = new PaypalRestClient(new PaypalRestConfig({
  gatewayName: 'paypal',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  configPath: '',
  webhookId: '',
  webhookVerification: 'online',
  config: { 'service.EndPoint': `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'http.RetryBackoffMs': 0 }
}), http, logger)

const amount = { currency_code: 'USD', value: '10.00' }
const summary = (id: string, status: string, updated: string): Record<string, unknown> =>
  ({ dispute_id: id, reason: 'UNAUTHORISED', status, dispute_amount: amount, create_time: '2026-11-01T10:00:00Z', update_time: updated })

t.beforeEach(() => { asked.length = 0 })

t.test('each transaction listed once by its id; only new or moved-on disputes are read in full and recorded', async (t) => {
  listing = { items: [summary('PP-D-1', 'OPEN', '2026-11-01T10:00:00Z'), summary('PP-D-2', 'RESOLVED', '2026-11-02T10:00:00Z'), { status: 'OPEN' }] }
  full['PP-D-2'] = { ...summary('PP-D-2', 'RESOLVED', '2026-11-02T10:00:00Z'), dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' } }
  const record = { paywire_disputes: [{ dispute_id: 'PP-D-1', status: 'OPEN', update_time: '2026-11-01T10:00:00Z' }, { dispute_id: 'PP-D-2', status: 'OPEN', update_time: '2026-11-01T10:00:00Z' }] }
  await syncDisputes(client, record, ['CAP-1', 'CAP-1'])
  t.same(asked.filter((url) => url.startsWith('/v1/customer/')), ['/v1/customer/disputes?disputed_transaction_id=CAP-1&page_size=50', '/v1/customer/disputes/PP-D-2'],
    'the recorded one and an item without an id are not read')
  t.match(record.paywire_disputes, [{ dispute_id: 'PP-D-1', status: 'OPEN' }, { dispute_id: 'PP-D-2', status: 'RESOLVED', outcome_code: 'RESOLVED_SELLER_FAVOUR' }])
})

t.test('a listing without items reads nothing more and records nothing', async (t) => {
  listing = { links: [] }
  const record: Record<string, unknown> = {}
  await syncDisputes(client, record, ['SALE-1'])
  t.same(asked.filter((url) => url.startsWith('/v1/customer/')), ['/v1/customer/disputes?disputed_transaction_id=SALE-1&page_size=50'])
  t.same(record, {})
})

t.test('isDisputeNews: unknown, newer or (within one second) another status; never an older listing', async (t) => {
  const record = { paywire_disputes: [{ dispute_id: 'a', status: 'UNDER_REVIEW', update_time: '2026-11-02T10:00:00Z' }, { dispute_id: 'b', status: 'OPEN' }] }
  t.ok(isDisputeNews({}, { dispute_id: 'a' }), 'nothing recorded')
  t.ok(isDisputeNews(record, { dispute_id: 'c' }))
  t.ok(isDisputeNews(record, { dispute_id: 'a', status: 'UNDER_REVIEW', update_time: '2026-11-03T10:00:00Z' }), 'newer')
  t.notOk(isDisputeNews(record, { dispute_id: 'a', status: 'OPEN', update_time: '2026-11-01T10:00:00Z' }), 'older: what is kept is newer')
  t.ok(isDisputeNews(record, { dispute_id: 'a', status: 'RESOLVED', update_time: '2026-11-02T10:00:00Z' }), 'same second, another status')
  t.notOk(isDisputeNews(record, { dispute_id: 'a', status: 'UNDER_REVIEW', update_time: '2026-11-02T10:00:00Z' }))
  t.notOk(isDisputeNews(record, { dispute_id: 'b', status: 'OPEN' }), 'no times: the status tells')
})

t.test('a 403 from the list (no Disputes permission): marked on the record, warned of once, the rest of the Sync goes on; other failures still fail', async (t) => {
  t.teardown(() => { listingStatus = 200 })
  listingStatus = 403
  listing = { name: 'NOT_AUTHORIZED', message: 'Authorization failed due to insufficient permissions.', debug_id: 'a1b2c3', details: [{ issue: 'PERMISSION_DENIED' }] }
  const record: Record<string, unknown> = {}
  await syncDisputes(client, record, ['CAP-1', 'CAP-2'])
  t.same(record, { paywire_disputes_unreadable: 'NOT_AUTHORIZED' })
  t.same(asked.filter((url) => url.startsWith('/v1/customer/')), ['/v1/customer/disputes?disputed_transaction_id=CAP-1&page_size=50'], 'not asked again for the next capture')
  await syncDisputes(client, record, ['CAP-1'])
  t.same(logger.lines.filter((line) => line.level === 'warn').map((line) => line.fields), [{ paypal: { gateway: 'paypal', status: 403, name: 'NOT_AUTHORIZED', debugId: 'a1b2c3' } }], 'once')

  listingStatus = 404
  listing = { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', debug_id: 'd4' }
  const failed = await syncDisputes(client, record, ['CAP-1']).then(() => undefined, (error: unknown) => error)
  t.match(failed, { paypal: { name: 'RESOURCE_NOT_FOUND' } }, 'another failure fails the Sync')
  listingStatus = 200
  listing = { items: [] }
  await syncDisputes(client, record, ['CAP-1'])
  t.same(record, {}, 'the list answers again: the mark is cleared')
})

t.test('a CUSTOMER.DISPUTE.* delivery: the dispute as PayPal shows it; on a 403 the signed delivery\'s own; another failure thrown', async (t) => {
  t.teardown(() => { showStatus = 200 })
  const sent = { dispute_id: 'PP-D-9', status: 'OPEN', update_time: '2026-11-01T10:00:00Z' }
  full['PP-D-9'] = { ...sent, status: 'UNDER_REVIEW', update_time: '2026-11-02T10:00:00Z' }
  t.match(await disputeOfEvent(client, sent), { status: 'UNDER_REVIEW' }, 'PayPal\'s current view')
  showStatus = 403
  full['PP-D-9'] = { name: 'NOT_AUTHORIZED', message: 'Authorization failed due to insufficient permissions.', debug_id: 'e5' }
  t.same(await disputeOfEvent(client, sent), sent, 'not allowed to read it: the delivery\'s own')
  showStatus = 500
  full['PP-D-9'] = { name: 'INTERNAL_SERVICE_ERROR', message: 'An internal service error has occurred', debug_id: 'e6' }
  const failed = await disputeOfEvent(client, sent).then(() => undefined, (error: unknown) => error)
  t.match(failed, { paypal: { name: 'INTERNAL_SERVICE_ERROR' } })
})
