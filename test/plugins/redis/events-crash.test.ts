/*
 * A process killed (SIGKILL) between the commit of a capture and the end of its event's
 * dispatch: the event is in Redis with the payment, and the next process delivers it.
 */
import { once } from 'node:events'
import t from 'tap'
import { OfflineGatewayFactory } from '../../../gateways/offline/index.ts'
import { Payment, PaywireBuilder, type PaymentEvent } from '../../../plugins/core/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { envWith, spawnUncovered } from '../../helpers/child-process.ts'
import { REDIS_URL, testRedis } from './fixtures.ts'

t.test('killed while dispatching: the committed event is delivered after the restart, with the payment captured', async (t) => {
  const { client, prefix } = await testRedis(t, 'events-crash')
  const child = spawnUncovered(process.execPath, ['--import', 'tsx', 'test/plugins/redis/fixtures/commit-then-die.ts'], {
    env: envWith({ REDIS_URL, KEY_PREFIX: prefix }),
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const [line] = await once(child.stdout, 'data') as [Buffer]
  const { paymentId } = JSON.parse(line.toString()) as { paymentId: string }
  const exited = once(child, 'exit')
  child.kill('SIGKILL')
  t.match(await exited, [null, 'SIGKILL'])

  // The restart: a new process (here, a new Paywire) on the same Redis.
  const paywire = new PaywireBuilder()
    .setStorageBackend(new RedisStorageBackend(client, { keyPrefix: prefix }))
    .addGatewayFactory('offline', new OfflineGatewayFactory())
    .addGateway('cash', { factory: 'offline' })
    .getPaywire()
  t.teardown(() => paywire.close())
  t.match(await paywire.getStorage(Payment).find(paymentId), { details: { status: 'captured' } }, 'the capture was committed')
  const heard: PaymentEvent[] = []
  paywire.on('payment.captured', (event) => { heard.push(event) })
  // Waits out the dead process's lease (300 ms) inside drain(): no sleep in the test.
  await paywire.events.drain()
  t.match(heard, [{ type: 'payment.captured', payment: { id: paymentId, number: 'DEMO-CRASH' }, previousStatus: 'new', status: 'captured' }])
  t.equal(heard.length, 1)
})
