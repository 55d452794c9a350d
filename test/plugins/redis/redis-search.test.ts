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

t.test('a search reads on past batches its filters reject; an entry whose facets are gone is never answered', async (t) => {
  const { client, prefix } = await testRedis(t, 'search-batches')
  const search = new RedisPaymentSearch(client, prefix, 'Payment')
  const minute = (n: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + n * 60_000).toISOString()
  for (let n = 0; n < 45; n++) {
    await search.put(`p${n}`, { ...facets('captured', []), id: `p${n}`, createdAt: minute(n), totalAmount: n % 20 === 0 ? 5000 : 100, v: 1 })
  }
  const rich = async (after?: string) => await search.search(normalizeQuery({ first: 2, amountMin: 5000, ...(after === undefined ? {} : { after }) }))
  const first = await rich()
  t.same(first.ids, ['p40', 'p20'], 'batches of 20 read on until the page is full')
  t.same((await rich(first.endCursor)).ids, ['p0'])
  await client.hdel(search.facetsKey, 'p44', 'p40')
  t.same((await search.search(normalizeQuery({ first: 2 }))).ids, ['p43', 'p42'], 'p44 is listed, but has no facets')
  t.same((await rich()).ids, ['p20', 'p0'])
  await search.put('p43', { ...facets('pending', []), id: 'p43', createdAt: minute(43), attentionAt: minute(50), v: 2 })
  await client.hdel(search.facetsKey, 'p43')
  t.same(await search.attentionDue(minute(60), 5), [], 'a due entry whose facets are gone')
})
