import Fastify, { type FastifyInstance } from 'fastify'
import { getIntrospectionQuery } from 'graphql'
import mercurius from 'mercurius'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import {
  INTROSPECTION_QUERY_DEPTH, MERCURIUS_DEFAULTS, TYPE_NAMES, mercuriusOptions, paywireGraphql, type PaywireGraphqlOptions
} from '../../../plugins/graphql/index.ts'
import { buildGraphqlApp, gql } from './fixtures.ts'

async function ready (app: FastifyInstance): Promise<void> {
  await app.ready()
}

/** A shop with the core plugin; `register` adds GraphQL. Wrapped: a Fastify instance is thenable, awaiting it would boot it. */
async function shop (register: (app: FastifyInstance) => Promise<void> | void): Promise<{ app: FastifyInstance }> {
  const app = Fastify()
  await app.register(paywire, { baseUrl: 'https://shop.example', gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await register(app)
  return { app }
}

t.test('invalid options fail boot with a coded error naming the option', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ mercurius: 'yes' }, 'mercurius'],
    [{ authorize: 'admins' }, 'authorize'],
    [{ afterUrlOrigins: ['shop.example'] }, 'afterUrlOrigins.0'],
    [{ afterUrlOrigins: ['https://shop.example/thanks'] }, 'afterUrlOrigins.0'],
    [{ afterUrlOrigins: 'any' }, 'afterUrlOrigins'],
    [{ afterUrlOrigins: [42] }, 'afterUrlOrigins.0'],
    [{ mercurius: null }, 'mercurius'],
    [{ idempotency: { ttlSeconds: 0 } }, 'idempotency.ttlSeconds'],
    [{ idempotency: { store: { claim () {} } } }, 'idempotency.store'],
    [{ maxPageSize: 0 }, 'maxPageSize']
  ]
  for (const [options, option] of cases) {
    const { app } = await shop((app) => { app.register(paywireGraphql, { mercurius: true, ...options } as PaywireGraphqlOptions) })
    await t.rejects(ready(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: new RegExp(`option "${option.replace(/\./g, '\\.')}"`) }, option)
    await app.close()
  }
})

t.test('unknown options fail boot, naming the nearest one, also inside idempotency', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ authorise: () => true }, 'Invalid option "authorise": is not an option of the paywire-graphql plugin (did you mean authorize?); its options: mercurius, authorize, afterUrlOrigins, idempotency, maxPageSize'],
    [{ idempotency: { ttl: 60 } }, 'Invalid option "idempotency.ttl": is not an option of paywire-graphql\'s idempotency; its options: store, ttlSeconds, lockMs, waitMs'],
    [{ idempotency: { lockMS: 5 } }, 'Invalid option "idempotency.lockMS": is not an option of paywire-graphql\'s idempotency (did you mean lockMs?); its options: store, ttlSeconds, lockMs, waitMs']
  ]
  for (const [options, message] of cases) {
    const { app } = await shop((app) => { app.register(paywireGraphql, { mercurius: true, ...options } as PaywireGraphqlOptions) })
    await t.rejects(ready(app), { code: 'PAYWIRE_ERR_INVALID_OPTION', message })
    await app.close()
  }
})

t.test('mercurius is registered by the application or, when asked, by the plugin; never twice, never missing', async (t) => {
  const { app: missing } = await shop((app) => { app.register(paywireGraphql, {}) })
  await t.rejects(ready(missing), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /register it before paywire-graphql, or pass mercurius: true/ })
  await missing.close()

  const { app: twice } = await shop(async (app) => {
    await app.register(mercurius, {})
    app.register(paywireGraphql, { mercurius: true })
  })
  await t.rejects(ready(twice), { code: 'PAYWIRE_ERR_INVALID_OPTION', message: /already registered/ })
  await twice.close()

  const withoutPaywire = Fastify()
  withoutPaywire.register(paywireGraphql, { mercurius: true })
  await t.rejects(ready(withoutPaywire), { code: 'FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE', message: /paywire/ })
  await withoutPaywire.close()
})

t.test('an application with its own schema keeps it and gains Paywire\'s, in one endpoint', async (t) => {
  const { app } = await shop(async (app) => {
    await app.register(mercurius, {
      schema: 'type Query { hello: String }\ntype Mutation { ping: Boolean }',
      resolvers: { Query: { hello: () => 'world' }, Mutation: { ping: () => true } }
    })
    await app.register(paywireGraphql, {})
  })
  t.teardown(() => app.close())
  await app.ready()
  const query = await gql(app, '{ hello gateways { name } }')
  t.same(query.data, { hello: 'world', gateways: [{ name: 'cash' }] })
  const mutation = await gql(app, 'mutation { ping createPayment(input: { gateway: "cash", totalAmount: 100, currencyCode: "EUR" }) { __typename } }')
  t.same(mutation.data, { ping: true, createPayment: { __typename: 'PaymentCreated' } })
})

t.test('an application schema without mutations gets Paywire\'s Mutation root', async (t) => {
  for (const schema of ['type Query { hello: String }', undefined]) {
    const { app } = await shop(async (app) => {
      await app.register(mercurius, schema === undefined ? {} : { schema, resolvers: { Query: { hello: () => 'world' } } })
      await app.register(paywireGraphql, {})
    })
    await app.ready()
    const answer = await gql(app, 'mutation { createPayment(input: { gateway: "cash", totalAmount: 100, currencyCode: "EUR" }) { __typename } }')
    t.same(answer.data, { createPayment: { __typename: 'PaymentCreated' } }, schema ?? 'mercurius without a schema')
    await app.close()
  }
})

t.test('a type name the application already uses is a coded boot error', async (t) => {
  const { app } = await shop(async (app) => {
    await app.register(mercurius, { schema: 'type Query { hello: String }\ntype Payment { reference: String }' })
    app.register(paywireGraphql, {})
  })
  await t.rejects(ready(app), { code: 'PAYWIRE_ERR_GRAPHQL_SCHEMA_CONFLICT', message: /"Payment" already exists/ })
  await app.close()
  t.ok(TYPE_NAMES.includes('Payment') && TYPE_NAMES.includes('CreatePaymentResult') && TYPE_NAMES.includes('ProviderError'),
    'the reserved names are exported for applications to check')
})

t.test('safe defaults: query depth limit, CSRF prevention, no GraphiQL, no batches', async (t) => {
  t.match(MERCURIUS_DEFAULTS, { queryDepth: 8, csrfPrevention: true, graphiql: false, allowBatchedQueries: false })
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())

  const deep = await gql(app, '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }')
  t.match(deep.errors, [{ message: /query depth \(10\) exceeds the query depth limit of 8/ }])
  const introspection = await gql(app, getIntrospectionQuery())
  t.match(introspection.errors, [{ message: /query depth \(15\) exceeds/ }], 'full introspection too, outside development')

  const simple = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify({ query: '{ gateways { name } }' }) })
  t.equal(simple.statusCode, 400, 'a form-like POST (no preflight) is refused')
  t.match(simple.body, /Cross-Site Request Forgery/)
  const get = await app.inject({ url: '/graphql?query={gateways{name}}' })
  t.equal(get.statusCode, 400, 'a GET without a preflight header is refused')
  const preflighted = await app.inject({ url: '/graphql?query={gateways{name}}', headers: { 'x-mercurius-operation-name': 'gateways' } })
  t.equal(preflighted.statusCode, 200)

  t.equal((await app.inject({ url: '/graphiql' })).statusCode, 404)
  const batch = await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify([{ query: '{ gateways { name } }' }]) })
  t.equal(batch.statusCode, 400)
})

t.test('with GraphiQL on, the depth limit lets its introspection query through', async (t) => {
  t.match(mercuriusOptions({ graphiql: true }), { graphiql: true, queryDepth: INTROSPECTION_QUERY_DEPTH, csrfPrevention: true })
  t.match(mercuriusOptions({ ide: 'graphiql', queryDepth: 20 }), { queryDepth: 20 }, 'an explicit limit wins')
  t.match(mercuriusOptions(true), { queryDepth: 8, graphiql: false })
  const { app } = await buildGraphqlApp({ graphql: { mercurius: { graphiql: true } } })
  t.teardown(() => app.close())
  t.equal((await app.inject({ url: '/graphiql' })).statusCode, 200)
  t.equal((await gql(app, getIntrospectionQuery())).errors, undefined)
})

t.test('mercurius options given to the plugin are merged over the defaults', async (t) => {
  const { app } = await buildGraphqlApp({ graphql: { mercurius: { path: '/api/graphql', queryDepth: 3 } } })
  t.teardown(() => app.close())
  const answer = await app.inject({
    method: 'POST',
    url: '/api/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query: '{ payments { ... on PaymentConnection { edges { node { id } } } } }' })
  })
  t.match(answer.json().errors, [{ message: /exceeds the query depth limit of 3/ }])
  const shallow = await app.inject({
    method: 'POST', url: '/api/graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query: '{ gateways { name } }' })
  })
  t.same(shallow.json().data, { gateways: [{ name: 'cash' }, { name: 'provider' }, { name: 'statusonly' }] })
  t.equal((await app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode, 404,
    'the default path is not served')
})
