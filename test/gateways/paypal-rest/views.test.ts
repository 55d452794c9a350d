import t from 'tap'
import { PaypalRestConfig, PaypalViews } from '../../../gateways/paypal-rest/index.ts'
import { StatusTransitions } from '../../../plugins/core/index.ts'
import { CapturingLogger } from './fixtures/recorders.ts'

function setup (): { views: PaypalViews, logger: CapturingLogger } {
  const logger = new CapturingLogger()
  const config = new PaypalRestConfig({ gatewayName: 'paypal', clientId: 'c', clientSecret: 's', configPath: '', config: {}, webhookId: '', webhookVerification: 'online' })
  return { views: new PaypalViews(new StatusTransitions(), logger, config), logger }
}

const sale = (state: string, refunds: Array<{ id: string, total: string }> = []) => ({
  transactions: [{
    related_resources: [
      { sale: { id: 'S1', state, amount: { total: '19.99', currency: 'EUR' } } },
      ...refunds.map(({ id, total }) => ({ refund: { id, state: 'completed', amount: { total, currency: 'EUR' } } }))
    ]
  }]
})

t.test('a forward move is taken; Paywire\'s own fields are kept', async (t) => {
  const { views, logger } = setup()
  const record: Record<string, any> = { id: 'PAYID-1', state: 'created', paywire_key: 'k', paywire_refunds: [] }
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('completed') }, 'execute'), 'apply')
  t.match(record, { state: 'approved', paywire_key: 'k', paywire_refunds: [] })
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('partially_refunded', [{ id: 'R1', total: '5.00' }]) }, 'sync'), 'apply')
  t.same(logger.lines, [])
})

t.test('Sync never brings an ended payment back: PayPal\'s "created" after a cancel, an expiry or a refusal is kept out', async (t) => {
  const { views } = setup()
  for (const state of ['cancelled', 'expired', 'failed']) {
    const record: Record<string, any> = { id: 'PAYID-1', state }
    t.equal(views.take(record, { id: 'PAYID-1', state: 'created', payer: { payer_info: {} } }, 'sync'), 'keep', state)
    t.same(record, { id: 'PAYID-1', state }, `${state}: nothing taken`)
  }
  const refunded: Record<string, any> = { id: 'PAYID-1', state: 'approved', ...sale('refunded', [{ id: 'R1', total: '19.99' }]) }
  t.equal(views.take(refunded, { id: 'PAYID-1', state: 'approved', ...sale('completed') }, 'webhook'), 'keep', 'a late "completed" never undoes a refund')
})

t.test('money that moved after a local end wins, and is logged at warn', async (t) => {
  const { views, logger } = setup()
  const record: Record<string, any> = { id: 'PAYID-1', state: 'cancelled' }
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('completed') }, 'webhook'), 'overrule')
  t.equal(record.state, 'approved')
  t.match(logger.lines, [{ level: 'warn', fields: { paypal: { gateway: 'paypal', payment: 'PAYID-1', from: 'canceled', to: 'captured', source: 'webhook' } }, message: /money moved after the payment had ended/ }])
})

t.test('a view with the same status that knows fewer refunds is stale: kept out', async (t) => {
  const { views } = setup()
  const record: Record<string, any> = { id: 'PAYID-1', state: 'approved', ...sale('partially_refunded', [{ id: 'R1', total: '5.00' }, { id: 'R2', total: '5.00' }]) }
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('partially_refunded', [{ id: 'R1', total: '5.00' }]) }, 'sync'), 'keep')
  t.equal(record.transactions[0].related_resources.length, 3)
  const own: Record<string, any> = { id: 'PAYID-1', state: 'approved', ...sale('completed'), paywire_refunds: [{ state: 'completed', id: 'R9', amount: { total: '1.00', currency: 'EUR' } }] }
  t.equal(views.take(own, { id: 'PAYID-1', state: 'approved', ...sale('partially_refunded', [{ id: 'R9', total: '1.00' }]) }, 'refund'), 'apply', 'a refund Paywire made, now in PayPal\'s view too')
})

t.test('a Sync PayPal answers against a payment\'s money: kept out and remembered for money.mismatch, forgotten once PayPal agrees', async (t) => {
  const { views } = setup()
  const { PaypalStateReader } = await import('../../../gateways/paypal-rest/state-reader.ts')
  const record: Record<string, any> = { id: 'PAYID-1', state: 'approved', ...sale('completed') }
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('pending') }, 'webhook'), 'keep', 'a late webhook')
  t.notOk('paywire_provider_view' in record, 'is no disagreement')
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('denied') }, 'sync'), 'keep', 'PayPal now says the sale was denied')
  t.same(record.paywire_provider_view, { status: 'failed', amounts: { captured: 0, refunded: 0, reversed: 0 } })
  t.match(new PaypalStateReader().read({ details: record }), { status: 'captured', providerView: { status: 'failed' } }, 'the reader tells both sides')
  t.equal(views.take(record, { id: 'PAYID-1', state: 'approved', ...sale('completed') }, 'sync'), 'apply')
  t.notOk('paywire_provider_view' in record, 'agreeing again')
  t.notOk('providerView' in (new PaypalStateReader().read({ details: record }) ?? {}))
})
