import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { Payment, paywire, type PaywirePluginOptions } from '../../../plugins/core/index.ts'

const DAY = 86_400_000

async function app (t: Test, options: PaywirePluginOptions): Promise<ReturnType<typeof Fastify>> {
  const server = Fastify()
  t.teardown(() => server.close())
  await server.register(paywire, options)
  await server.register(offlineGateway)
  await server.ready()
  return server
}

t.test('the reconcile option is checked when the plugin registers: a misspelt name gets "did you mean"', async (t) => {
  for (const [reconcile, message] of [
    [{ intervalMS: 1000 }, /reconcile\.intervalMS.*did you mean intervalMs\?/],
    [{ batchSize: 0 }, /reconcile\.batchSize.*whole number, 1 or more/],
    ['yes', /"reconcile": must be true, or \{ intervalMs, batchSize, perSecond/]
  ] as const) {
    const server = Fastify()
    t.teardown(() => server.close())
    await t.rejects(async () => { await server.register(paywire, { reconcile } as never).ready() }, { code: 'PAYWIRE_ERR_INVALID_OPTION', message }, String(message))
  }
})

t.test('off by default; reconcile: true starts it once ready (its warning follows attention.expiryWarningMs) and close() stops it', async (t) => {
  const off = await app(t, {})
  t.equal(off.paywire.reconcile.running, false, 'off unless asked')

  const on = await app(t, { reconcile: true, attention: { expiryWarningMs: 2 * DAY } })
  t.equal(on.paywire.reconcile.running, true)
  t.equal(on.paywire.reconcile.options.expiryWarningMs, 2 * DAY)
  t.equal(on.paywire.reconcile.options.intervalMs, 60_000, 'the defaults otherwise')
  const tuned = await app(t, { reconcile: { intervalMs: 5000, batchSize: 20, expiryWarningMs: DAY / 2 }, attention: { expiryWarningMs: 2 * DAY } })
  t.match(tuned.paywire.reconcile.options, { intervalMs: 5000, batchSize: 20, expiryWarningMs: DAY / 2 }, 'its own options win')
  await on.close()
  t.equal(on.paywire.reconcile.running, false)
})

t.test('payments whose gateway runs no Sync (offline) are skipped and backed off, never Synced', async (t) => {
  const server = await app(t, { reconcile: { intervalMs: 3_600_000 }, gateways: { cash: { factory: 'offline' } } })
  const storage = server.paywire.getStorage(Payment)
  await storage.update(Object.assign(storage.create(), { gatewayName: 'cash', number: 'N-1', totalAmount: 100, currencyCode: 'EUR', details: { status: 'pending' } }))
  server.paywire.reconcile.configure({ now: () => Date.now() + DAY })
  t.match(await server.paywire.reconcile.sweepOnce(), { leased: true, due: 1, unsupported: 1, backedOff: 1, synced: 0 }, 'pending for a day: due, but there is no provider to ask')
  t.match(await server.paywire.reconcile.sweepOnce(), { due: 0, unsupported: 0 }, 'backed off to the longest wait, in the storage')
})

t.test('a Payment storage that cannot find due payments: ready() fails with the storage\'s coded error', async (t) => {
  const server = Fastify()
  t.teardown(() => server.close())
  const storage = { modelName: 'Payment', create: () => new Payment(), update: async () => {}, find: async () => null, identify: () => { throw new Error('unused') } }
  await t.rejects(async () => { await server.register(paywire, { reconcile: true, storages: [[Payment, storage as never]] }).ready() }, { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' })
})
