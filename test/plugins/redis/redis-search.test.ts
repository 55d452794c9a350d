import t from 'tap'
import { RedisPaymentSearch } from '../../../plugins/redis/redis-search.ts'
import { normalizeQuery, type PaymentFacets } from '../../../plugins/core/engine/index.ts'
import { testRedis } from './fixtures.ts'

const facets = (status: PaymentFacets['status'], providerIds: string[]): PaymentFacets => ({
  id: 'p1', gatewayName: 'cash', status, currencyCode: 'EUR', totalAmount: 100, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z', providerIds
})

t.test('facets of an older record version never replace a newer one\'s (two commits\' index steps crossed)', async (t) => {
  const { client, prefix } = await testRedis(t, 'search-order')
  const search = new RedisPaymentSearch(client, prefix, 'Payment')
  await search.put('p1', { ...facets('captured', ['ch_2']), v: 3 })
  await search.put('p1', { ...facets('pending', ['ch_1']), v: 2 })
  t.equal((await search.get('p1'))?.status, 'captured')
  const ids = async (query: object) => (await search.search(normalizeQuery({ first: 5, ...query }))).ids
  t.same(await ids({ status: ['pending'] }), [])
  t.same(await ids({ providerId: 'ch_2' }), ['p1'])
  t.same(await ids({ providerId: 'ch_1' }), [], 'the older entries were never added')
  await search.put('p1', { ...facets('refunded', []), v: 4 })
  t.same(await ids({ providerId: 'ch_2' }), [], 'a newer version moves every entry')
  t.same(await ids({ status: ['refunded'] }), ['p1'])
  await search.put('p1', undefined, 5)
  t.equal(await search.get('p1'), undefined)
  t.same(await ids({}), [], 'deleted')
  await search.put('p1', undefined, 6)
  t.same(await client.keys(`${prefix}search:*`), [], 'a delete of nothing leaves nothing')
})
