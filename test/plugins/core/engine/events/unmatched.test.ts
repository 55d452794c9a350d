import t from 'tap'
import { PaywireBuilder, PaywireEvents, type UnmatchedNotification } from '../../../../../plugins/core/engine/index.ts'

const unmatched: UnmatchedNotification = { gateway: 'paypal', provider: 'PayPal', eventId: 'WH-1', eventType: 'PAYMENT.SALE.COMPLETED', resourceIds: { sale: 'S-1' } }

t.test('money.unmatched goes through the outbox: heard once started, with an event id and time; unsubscribing stops it', async (t) => {
  const events = new PaywireEvents({ debug: () => {}, info: () => {}, warn: () => {}, error: () => {} })
  t.teardown(() => events.close())
  const heard: unknown[] = []
  const off = events.on('money.unmatched', (event) => { heard.push(event) })
  await events.emit('money.unmatched', unmatched)
  t.same(heard, [], 'nothing is delivered before start(): handlers registered while the application loads miss nothing')
  await events.drain()
  t.match(heard, [{ ...unmatched, type: 'money.unmatched', id: /^[0-9a-f-]{36}$/, occurredAt: /^\d{4}-/ }])
  off()
  await events.emit('money.unmatched', unmatched)
  await events.drain()
  t.equal(heard.length, 1)
})

t.test('paywire.on() subscribes to the events gateways emit through the container service', async (t) => {
  const paywire = new PaywireBuilder().getPaywire()
  t.teardown(() => paywire.close())
  const heard: UnmatchedNotification[] = []
  paywire.on('money.unmatched', (event) => { heard.push(event) })
  await paywire.container.get(PaywireEvents).emit('money.unmatched', unmatched)
  await paywire.events.drain()
  t.match(heard, [unmatched])
})
