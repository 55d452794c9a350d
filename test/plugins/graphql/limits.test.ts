/*
 * Bounded work per GraphQL request: aliases, root fields, cost, directives, batches,
 * introspection and suggestions; malformed queries are client errors; the memory
 * idempotency store has a size bound.
 */
import Fastify from 'fastify'
import mercurius from 'mercurius'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import { MemoryIdempotencyStore, paywireGraphql } from '../../../plugins/graphql/index.ts'
import { ADMIN, CREATE, buildGraphqlApp, gql } from './fixtures.ts'

const INPUT = '{ gateway: "cash", totalAmount: 100, currencyCode: "EUR" }'
const aliased = (count: number) => `mutation { ${Array.from({ length: count }, (_, index) => `p${index}: createPayment(input: ${INPUT}) { __typename }`).join(' ')} }`

t.test('one request cannot create hundreds of payments through aliases', async (t) => {
  const { app, storage } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const flood = await gql(app, aliased(500))
  t.equal(flood.data, null)
  t.match(flood.errors?.[0].message, /Aliases limit of 15 exceeded, found 500/)
  const four = await gql(app, aliased(4))
  t.equal(four.statusCode, 400)
  t.same(four.errors?.map((error) => error.message), ['The mutation has 4 root fields; at most 3 are allowed.'])
  t.equal((await storage.findBy({})).length, 0, 'no payment was made')
  const three = await gql(app, aliased(3))
  t.equal(three.statusCode, 200)
  t.equal((await storage.findBy({})).length, 3, 'within the limits, the mutation runs')
})

t.test('queries: root fields, cost and directives are bounded; the limits are options', async (t) => {
  const { app } = await buildGraphqlApp({ graphql: { limits: { maxCost: 60, maxDirectives: 2, maxRootFields: 2 } } })
  t.teardown(() => app.close())
  const reads = (count: number) => `{ ${Array.from({ length: count }, (_, index) => `g${index}: gateways { name }`).join(' ')} }`
  t.equal((await gql(app, reads(2), {}, ADMIN)).statusCode, 200)
  t.match((await gql(app, reads(3), {}, ADMIN)).errors?.[0].message, 'The query has 3 root fields; at most 2 are allowed.')
  const fragments = await gql(app, '{ ...A } fragment A on Query { a: gateways { name } b: gateways { name } c: gateways { name } }', {}, ADMIN)
  t.match(fragments.errors?.[0].message, '3 root fields', 'fragments spread at the root count')
  const costly = await gql(app, '{ payments(first: 100) { ... on PaymentConnection { nodes { id number status totalAmount currencyCode gatewayName description clientEmail } edges { node { id number status } cursor } } } }', {}, ADMIN)
  t.equal(costly.data, null)
  t.match(costly.errors?.map((error) => error.message), [/cost/i])
  const directives = await gql(app, '{ gateways @include(if: true) @skip(if: false) { name @include(if: true) } }', {}, ADMIN)
  t.match(directives.errors?.[0].message, /directives/i)
})

t.test('batches are bounded when mercurius allows them', async (t) => {
  const { app } = await buildGraphqlApp({ graphql: { mercurius: { allowBatchedQueries: true }, limits: { maxBatch: 2 } } })
  t.teardown(() => app.close())
  const batch = (count: number) => app.inject({ method: 'POST', url: '/graphql', payload: Array.from({ length: count }, () => ({ query: '{ gateways { name } }' })) })
  t.ok((await batch(2)).json().every((answer: { data: unknown }) => answer.data !== null))
  const tooMany = (await batch(3)).json()
  t.equal(tooMany.length, 3)
  t.ok(tooMany.every((answer: { errors?: Array<{ message: string }> }) => /batch of 3 operations; at most 2/.test(answer.errors?.[0]?.message ?? '')), 'no operation of the batch ran')
})

t.test('a query that is not a string is a client error, without internals', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  for (const query of [5, true]) {
    const answer = await app.inject({ method: 'POST', url: '/graphql', payload: { query } })
    t.equal(answer.statusCode, 400, JSON.stringify(query))
    t.same(answer.json().errors, [{ message: 'The query must be a GraphQL document as a string.' }])
  }
})

t.test('introspection and suggestions are off in production, on in development, and options either way', async (t) => {
  const env = process.env.NODE_ENV
  t.teardown(() => { process.env.NODE_ENV = env })
  process.env.NODE_ENV = 'production'
  const production = await buildGraphqlApp({ paywire: { baseUrl: 'https://shop.example', allowMemoryStorage: true } })
  t.teardown(() => production.app.close())
  const schema = await gql(production.app, '{ __schema { types { name } } }')
  t.equal(schema.data, null)
  t.match(schema.errors?.[0].message, /introspection has been disabled/)
  t.match((await gql(production.app, '{ __type(name: "Payment") { name } }')).errors?.[0].message, /introspection has been disabled/)
  t.equal((await gql(production.app, '{ __typename }')).data.__typename, 'Query', '__typename is not introspection')
  const typo = await gql(production.app, '{ paymentz }')
  t.equal(typo.errors?.[0].message, 'Cannot query field "paymentz" on type "Query".', 'no "did you mean": the schema stays private')
  const opened = await buildGraphqlApp({ paywire: { baseUrl: 'https://shop.example', allowMemoryStorage: true }, graphql: { limits: { introspection: true, suggestions: true } } })
  t.teardown(() => opened.app.close())
  t.equal((await gql(opened.app, '{ __schema { queryType { name } } }')).data.__schema.queryType.name, 'Query')
  t.match((await gql(opened.app, '{ paymentz }')).errors?.[0].message, 'Did you mean "payment" or "payments"?')

  process.env.NODE_ENV = 'development'
  const development = await buildGraphqlApp()
  t.teardown(() => development.app.close())
  t.equal((await gql(development.app, '{ __schema { queryType { name } } }')).statusCode, 200)
  t.match((await gql(development.app, '{ paymentz }')).errors?.[0].message, 'Did you mean')
})

t.test('the limits hold when the application registered mercurius itself; limits: false leaves them to it', async (t) => {
  for (const limits of [undefined, false] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
    await app.register(offlineGateway)
    await app.register(mercurius, { schema: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'hi' } } })
    await app.register(paywireGraphql, { limits })
    const answer = await gql(app, aliased(20))
    t.equal(answer.data === null, limits !== false, `limits: ${String(limits)}`)
  }
})

t.test('bad limits fail boot, naming the option', async (t) => {
  for (const limits of [{ maxAliases: -1 }, { maxBatch: 0 }, { maxcost: 5 }, { introspection: 'yes' }]) {
    const app = Fastify()
    await app.register(paywire, { baseUrl: 'https://shop.example' })
    app.register(paywireGraphql, { mercurius: true, limits } as never)
    await t.rejects(async () => { await app.ready() }, { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /"limits/ }, JSON.stringify(limits))
    await app.close()
  }
})

t.test('the memory idempotency store keeps at most maxEntries keys, the oldest going first', async (t) => {
  const store = new MemoryIdempotencyStore({ maxEntries: 3 })
  for (const key of ['a', 'b', 'c', 'd']) t.equal(await store.claim(key, { fingerprint: key, owner: key }, 60_000), null)
  t.equal(store.size, 3)
  t.equal(await store.claim('a', { fingerprint: 'x', owner: 'x' }, 60_000), null, 'the oldest key was forgotten')
  t.match(await store.claim('d', { fingerprint: 'x', owner: 'x' }, 60_000), { owner: 'd' }, 'a recent one is kept')
  t.throws(() => new MemoryIdempotencyStore({ maxEntries: 0 }), { code: 'PAYWIRE_ERR_INVALID_OPTION' })

  const { app } = await buildGraphqlApp({ graphql: { idempotency: { store: new MemoryIdempotencyStore({ maxEntries: 2 }) } } })
  t.teardown(() => app.close())
  for (const key of ['k1', 'k2', 'k3']) {
    const answer = await gql(app, CREATE, { input: { gateway: 'cash', totalAmount: 100, currencyCode: 'EUR' } }, { 'idempotency-key': key })
    t.equal(answer.data.createPayment.__typename, 'PaymentCreated')
  }
})

t.test('without afterUrlOrigins, after URLs may point at the configured origins only, whatever Host says', async (t) => {
  const app = Fastify({ trustProxy: true })
  t.teardown(() => app.close())
  await app.register(paywire, { trustRequestBaseUrl: ['https://shop.example'], gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.register(paywireGraphql, { mercurius: true })
  const create = (afterUrl: string, host: string) => gql(app, CREATE, { input: { gateway: 'cash', totalAmount: 100, currencyCode: 'EUR', afterUrl } }, { 'x-forwarded-host': host, 'x-forwarded-proto': 'https' })
  const spoofed = await create('https://evil.example/thanks', 'evil.example')
  t.match(spoofed.data.createPayment, { __typename: 'InvalidAfterUrl', reason: 'origin https://evil.example is not allowed' })
  const genuine = await create('https://shop.example/thanks', 'shop.example')
  t.match(genuine.data.createPayment, { __typename: 'PaymentCreated', captureUrl: /^https:\/\/shop\.example\/payment\/capture\// })
})
