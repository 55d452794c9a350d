/*
 * The guides' examples (docs/*.md link them) run as the guides say: each main() is the
 * example exactly as a reader copies it; tsc type-checks them with the rest of the tree.
 */
import t from 'tap'
import { main as gatewaysAndActions } from '../../../examples/guides/gateways-and-actions.ts'
import { main as extensions } from '../../../examples/guides/extensions.ts'
import { main as storages } from '../../../examples/guides/storages.ts'
import { main as tokensAndRoutes } from '../../../examples/guides/tokens-and-routes.ts'
import { main as writingAGateway } from '../../../examples/guides/writing-a-gateway.ts'

t.test('gateways and actions: plain objects are wrapped and written through; status actions mark', async (t) => {
  t.same(await gatewaysAndActions(), { till: 'captured', plain: { amount: 1250, paid: true }, wrapped: true, cash: 'captured' })
})

t.test('extensions: every hook in order, the prepended extension first', async (t) => {
  t.same(await extensions(), [
    'first.onPreExecute depth=0', 'audit.onPreExecute depth=0',
    'first.onExecute CaptureAction', 'audit.onExecute CaptureAction',
    'first.onPostExecute ok', 'audit.onPostExecute ok'
  ])
})

t.test('storages: an application model stored, found, indexed; a stale copy refused', async (t) => {
  t.same(await storages(), { found: 4200, byTotal: 1, conflict: true, paymentStored: true })
})

t.test('tokens and routes: path and query-string tokens verify; runWithHttpRequest feeds GetHttpRequest; templates render', async (t) => {
  t.same(await tokensAndRoutes(), {
    capturePath: '/pay/capture/<hash>',
    pathTokenMatches: true,
    ownUrl: '/shop/pay?paywire_token=…',
    queryTokenMatches: true,
    seenQuery: { PayerID: 'P-1' },
    receipt: '<h1>Receipt ORDER-9</h1>\n<p>Paid by &lt;Ada&gt;</p>'
  })
})

t.test('writing a gateway: options, injection, one charge for two captures, an observed provider call', async (t) => {
  const result = await writingAGateway()
  t.match(result, {
    status: 'pending',
    details: { amount: 1500, currency: 'EUR', order: 'ORDER-3', charge_id: 'ch_1', state: 'pending' },
    calls: 1
  })
  t.match(result.logged, [
    { provider: { name: 'Acme', method: 'POST', path: '/v1/charges', status: 201, debugId: 'dbg-42' } },
    { provider: { name: 'Acme', method: 'GET', path: '/v1/charges/:id', status: 200 } }
  ], 'the capture, then the webhook\'s look at the charge')
  t.match(result.forged, { statusCode: 400, content: 'Bad signature' }, 'a forged webhook is refused')
  t.equal(result.afterWebhook, 'captured', 'the genuine one ran on its payment: the provider says it settled')
  t.notMatch(JSON.stringify(result.logged), '<ACME_API_KEY>')
})
