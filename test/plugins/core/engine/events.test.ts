import t from 'tap'
import { PaywireBuilder, PaywireEvents, type UnmatchedNotification } from '../../../../plugins/core/engine/index.ts'

const unmatched: UnmatchedNotification = { gateway: 'paypal', provider: 'PayPal', eventId: 'WH-1', eventType: 'PAYMENT.SALE.COMPLETED', resourceIds: { sale: 'S-1' } }

t.test('subscribers hear what a gateway emits; unsubscribing stops it', async (t) => {
  const logged: unknown[] = []
  const events = new PaywireEvents({ debug: () => {}, info: () => {}, warn: () => {}, error: (entry: unknown) => { logged.push(entry) } })
  const heard: UnmatchedNotification[] = []
  const off = events.on('money.unmatched', (event) => { heard.push(event) })
  events.on('money.unmatched', () => { throw new Error('handler bug') })
  await events.emit('money.unmatched', unmatched)
  t.same(heard, [unmatched])
  t.match(logged, [{ err: { message: 'handler bug' }, paywire: { event: 'money.unmatched' } }], 'a failing handler is logged, never thrown')
  off()
  await events.emit('money.unmatched', unmatched)
  t.equal(heard.length, 1)
})

t.test('paywire.on() subscribes to the events gateways emit through the container service', async (t) => {
  const paywire = new PaywireBuilder().getPaywire()
  t.teardown(() => paywire.close())
  const heard: UnmatchedNotification[] = []
  paywire.on('money.unmatched', (event) => { heard.push(event) })
  await paywire.container.get(PaywireEvents).emit('money.unmatched', unmatched)
  t.same(heard, [unmatched])
})
