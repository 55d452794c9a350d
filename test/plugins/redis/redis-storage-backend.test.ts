import t from 'tap'
import { tokenKey } from '../../../plugins/redis/keys.ts'
import { DetailsRecord, Payment, PayoutModel, Token } from '../../../plugins/core/engine/index.ts'
import { DEFAULT_INDEXES, RedisStorage, RedisStorageBackend, RedisTokenStorage } from '../../../plugins/redis/index.ts'
import { buildTestApp } from '../core/fixtures.ts'
import { commandsSentBy, keysUnder, newClient, testRedis } from './fixtures.ts'

const { client, prefix } = await testRedis(t, 'backend')

t.test('the token storage shares the client and prefix and takes the configured lifetimes', async (t) => {
  const backend = new RedisStorageBackend(client, { keyPrefix: prefix, tokenTtl: { capture: 90 } })
  const tokens = backend.createTokenStorage()
  t.ok(tokens instanceof RedisTokenStorage)
  const token = Object.assign(new Token(), { kind: 'capture', gatewayName: 'cash', targetUrl: 'https://shop.example/payment/capture/x' })
  await tokens.save([token])
  const ttl = await client.ttl(tokenKey(prefix, token.hash))
  t.ok(ttl > 80 && ttl <= 90, `capture tokens live 90 s (${ttl})`)
})

t.test('backends sharing a client install its guard against late commands once', async (t) => {
  const first = new RedisStorageBackend(client, { keyPrefix: prefix })
  const guarded = first.client.sendCommand
  new RedisStorageBackend(client, { keyPrefix: `${prefix}other:` }) // eslint-disable-line no-new
  t.equal(client.sendCommand, guarded, 'not wrapped twice')
  t.equal(await client.ping(), 'PONG', 'commands still go through')
})

t.test('payments and payouts are indexed on their lookup fields by default', async (t) => {
  const keyPrefix = `${prefix}defaults:`
  const backend = new RedisStorageBackend(client, { keyPrefix })
  const payments = backend.createStorage(Payment)
  t.ok(payments instanceof RedisStorage)
  await payments.update(Object.assign(payments.create(), { number: 'N1', clientId: 'C1', clientEmail: 'a@example.com', description: 'D1' }))
  const payouts = backend.createStorage(PayoutModel)
  await payouts.update(Object.assign(payouts.create(), { recipientId: 'R1', recipientEmail: 'r@example.com', description: 'D2' }))
  t.same(await keysUnder(client, `${keyPrefix}index:`), [
    `${keyPrefix}index:{Payment}:clientEmail:a@example.com`,
    `${keyPrefix}index:{Payment}:clientId:C1`,
    `${keyPrefix}index:{Payment}:number:N1`,
    `${keyPrefix}index:{Payout}:recipientEmail:r@example.com`,
    `${keyPrefix}index:{Payout}:recipientId:R1`
  ])
  t.same(DEFAULT_INDEXES.Payment, ['number', 'clientId', 'clientEmail', 'details.id'])
  t.equal(new RedisStorageBackend(client).keyPrefix, 'paywire:', 'the default prefix')
})

t.test('indexes are configured per model name; a storage option wins', async (t) => {
  const keyPrefix = `${prefix}configured:`
  const backend = new RedisStorageBackend(client, { keyPrefix, indexes: { Payment: ['details.id'], DetailsRecord: ['data.orderId'] } })
  const payments = backend.createStorage(Payment)
  await payments.update(Object.assign(payments.create(), { number: 'N2', details: { id: 'PAY-2' } }))
  const records = backend.createStorage(DetailsRecord)
  const record = new DetailsRecord({ orderId: 'O-3' })
  await records.update(record)
  const payouts = backend.createStorage(PayoutModel)
  await payouts.update(Object.assign(payouts.create(), { recipientId: 'R2' }))
  const explicit = backend.createStorage(Payment, { modelName: 'Refunds', indexes: ['description'] })
  await explicit.update(Object.assign(explicit.create(), { number: 'N3', description: 'partial' }))
  t.same(await keysUnder(client, `${keyPrefix}index:`), [
    `${keyPrefix}index:{DetailsRecord}:data.orderId:O-3`,
    `${keyPrefix}index:{Payment}:details.id:PAY-2`,
    `${keyPrefix}index:{Payout}:recipientId:R2`,
    `${keyPrefix}index:{Refunds}:description:partial`
  ])
  t.same((await records.findBy({ 'data.orderId': 'O-3' })).map((found) => found.get('orderId')), ['O-3'], 'a details record round trip')
  t.ok((await records.findBy({ 'data.orderId': 'O-3' }))[0] instanceof DetailsRecord)
})

t.test('a token lifetime that is not a number of seconds fails construction', async (t) => {
  t.throws(() => new RedisStorageBackend(client, { tokenTtl: { notify: -5 } }), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"tokenTtl\.notify"/ })
})

t.test('prepareCapture stores the payment and both tokens in one script, all or nothing', async (t) => {
  const keyPrefix = `${prefix}prepare:`
  const { app } = await buildTestApp({ backend: new RedisStorageBackend(client, { keyPrefix, tokenTtl: { capture: 90 } }) })
  t.teardown(() => app.close())
  const payments = app.paywire.getStorage(Payment)
  const payment = (number: string) => Object.assign(payments.create(), { gatewayName: 'cash', number, totalAmount: 1999, currencyCode: 'EUR' })
  await app.paywire.prepareCapture('cash', payment('PREPARE-0'), 'done') // loads the script

  const prepared = payment('PREPARE-1')
  let token = null as unknown as Token
  const sent = await commandsSentBy(client, async () => { token = await app.paywire.prepareCapture('cash', prepared, 'done') })
  t.same(sent.map((command) => command.name), ['evalsha'], 'the record, its list, indexes and facets, and both tokens: one script')
  const ttl = await client.ttl(tokenKey(keyPrefix, token.hash))
  t.ok(ttl > 80 && ttl <= 90, `the capture token keeps its lifetime (${ttl})`)
  const done = new URL(token.afterUrl as string).pathname.split('/').at(-1) as string
  t.match(await client.get(tokenKey(keyPrefix, done)), /"kind":"after"/, 'the done token is stored')
  t.equal((await payments.find(prepared.id as string))?.number, 'PREPARE-1')

  // An id that is taken: the payment's write is refused (its version check), and no token is stored.
  const tokens = async () => (await keysUnder(client, keyPrefix)).filter((key) => key.includes(':token:')).length
  const before = await tokens()
  await t.rejects(app.paywire.prepareCapture('cash', Object.assign(payment('PREPARE-TAKEN'), { id: prepared.id }), 'done'), { code: 'PAYWIRE_ERR_CONCURRENT_UPDATE' })
  t.equal(await tokens(), before, 'no token of the refused prepare')
  t.equal((await payments.find(prepared.id as string))?.number, 'PREPARE-1')
})

t.test('prepareCapture with tokens on another client: the payment and the tokens side by side, both stored', async (t) => {
  const keyPrefix = `${prefix}prepare-apart:`
  const other = newClient()
  t.teardown(() => other.quit())
  const { app } = await buildTestApp({ backend: new RedisStorageBackend(client, { keyPrefix }), tokenStorage: new RedisTokenStorage(other, { keyPrefix }) })
  t.teardown(() => app.close())
  const payments = app.paywire.getStorage(Payment)
  const prepared = Object.assign(payments.create(), { gatewayName: 'cash', number: 'APART-1', totalAmount: 1999, currencyCode: 'EUR' })
  const token = await app.paywire.prepareCapture('cash', prepared, 'done')
  t.match(await client.get(tokenKey(keyPrefix, token.hash)), /"kind":"capture"/)
  t.equal((await payments.find(prepared.id as string))?.number, 'APART-1')
  const response = await app.inject({ url: new URL(token.targetUrl).pathname })
  t.equal(response.statusCode, 302, 'and captured through the token')
})
