import t from 'tap'
import { bearer, paidPayment, simulator } from '../fixtures/helpers.ts'

t.test('v1 refunds pending, failed, cancelled: only completed moves money; a pending one settles with PAYMENT.SALE.REFUNDED', async (t) => {
  const app = simulator(t)
  const auth = await bearer(app)
  const { saleId, paymentId } = await paidPayment(app, auth)
  const refund = async (total?: string) => await app.inject({
    method: 'POST', url: `/v1/payments/sale/${saleId}/refund`, headers: auth, payload: total === undefined ? {} : { amount: { total, currency: 'USD' } }
  })
  app.simulator.queueRefundOutcome('pending')
  app.simulator.queueRefundOutcome('failed')
  app.simulator.queueRefundOutcome('cancelled')
  const pending = (await refund('3.00')).json()
  t.match(pending, { state: 'pending', total_refunded_amount: { value: '0.00' } })
  t.equal((await refund('1.00')).json().state, 'failed')
  t.equal((await refund('1.00')).json().state, 'cancelled')
  t.equal(app.simulator.sale(saleId)?.state, 'completed', 'nothing refunded yet')
  t.equal((await refund('4.01')).json().name, 'TRANSACTION_REFUSED', 'the pending 3.00 is held')
  t.match(app.simulator.settleRefund(pending.id, 'completed'), { state: 'completed', total_refunded_amount: { value: '3.00' } })
  t.equal(app.simulator.sale(saleId)?.state, 'partially_refunded')
  t.throws(() => app.simulator.settleRefund(pending.id, 'failed'), /not pending/)
  t.throws(() => app.simulator.settleRefund('NOPE', 'failed'), /no refund/)
  app.simulator.queueRefundOutcome('pending', 2)
  const second = (await refund()).json()
  t.match(second, { state: 'pending', amount: { total: '4.00' } })
  t.equal((await refund()).json().name, 'TRANSACTION_REFUSED', 'all held')
  t.equal(app.simulator.settleRefund(second.id, 'failed').state, 'failed')
  t.equal(app.simulator.sale(saleId)?.state, 'partially_refunded')
  const refunds = app.simulator.payment(paymentId)?.transactions[0]?.related_resources?.slice(1) as Array<{ refund: { state: string } }>
  t.same(refunds.map((entry) => entry.refund.state), ['completed', 'failed', 'cancelled', 'failed'])
  t.same(app.simulator.webhooks.events().filter((event) => event.event_type === 'PAYMENT.SALE.REFUNDED').map((event) => (event.resource as { state: string }).state),
    ['pending', 'failed', 'cancelled', 'completed', 'pending', 'failed'])
  t.throws(() => app.simulator.queueRefundOutcome('completed' as never), /pending, failed or cancelled/)
  t.throws(() => app.simulator.queueRefundOutcome('failed', 1.5), /positive count/)
  t.match(app.simulator.reverseSale(saleId, { amountMinor: 100 }), { state: 'partially_refunded', reason_code: 'CHARGEBACK' })
})
