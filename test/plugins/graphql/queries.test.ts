import t from 'tap'
import { CoreGatewayFactory, Gateway, Payment, type ServiceContainer } from '../../../plugins/core/index.ts'
import { ADMIN, SECRET, buildGraphqlApp, capturedPayment, createPayment, gql, storedPayment } from './fixtures.ts'

const PAYMENT = `query Payment($id: ID, $number: String) {
  payment(id: $id, number: $number) {
    __typename
    ... on Payment { id number status gatewayName description clientEmail clientId totalAmount totalAmountDecimal currencyCode details localDetails createdAt updatedAt }
    ... on PaywireError { code message }
    ... on InvalidInput { field }
    ... on NotAuthorized { operation }
  }
}`

const PAYMENTS = `query Payments($filter: PaymentFilter, $first: Int, $after: String) {
  payments(filter: $filter, first: $first, after: $after) {
    __typename
    ... on PaymentConnection { nodes { id number status } edges { cursor node { id } } pageInfo { hasNextPage endCursor } }
    ... on PaywireError { code message }
    ... on InvalidInput { field }
  }
}`

class BrokenGatewayFactory extends CoreGatewayFactory {
  override createGateway (_container: ServiceContainer): Gateway {
    throw new Error(`cannot build: bad key ${SECRET}`)
  }
}

t.test('payment by id or number: fields, status from the gateway, details without secrets', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const id = await capturedPayment(app, { number: 'ORDER-7', description: 'Mug', clientEmail: 'a@example.com', details: { note: 'gift', api_key: SECRET } })
  const stored = await storedPayment(app, { gatewayName: 'provider', number: 'ORDER-8', details: { state: 'COMPLETED', access_token: SECRET } })

  const byId = await gql(app, PAYMENT, { id }, ADMIN)
  t.match(byId.data.payment, {
    __typename: 'Payment',
    id,
    number: 'ORDER-7',
    status: 'CAPTURED',
    gatewayName: 'cash',
    description: 'Mug',
    clientEmail: 'a@example.com',
    clientId: '',
    totalAmount: 1999,
    totalAmountDecimal: '19.99',
    currencyCode: 'EUR',
    details: { status: 'captured', paid: true },
    localDetails: { note: 'gift' },
    createdAt: /^\d{4}-\d\d-\d\dT/,
    updatedAt: /^\d{4}-\d\d-\d\dT/
  })
  t.notOk('local' in byId.data.payment.details)
  const byNumber = await gql(app, PAYMENT, { number: 'ORDER-8' }, ADMIN)
  t.match(byNumber.data.payment, { id: stored.id, status: 'CAPTURED', gatewayName: 'provider', details: { state: 'COMPLETED' } })
  t.notMatch(byId.body + byNumber.body, SECRET)
})

t.test('payment: typed errors for bad arguments, unknown payments and callers the application refuses', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{}, { __typename: 'InvalidInput', field: 'id', message: /exactly one of id and number/ }],
    [{ id: 'x', number: 'y' }, { __typename: 'InvalidInput', field: 'id' }],
    [{ number: '' }, { __typename: 'InvalidInput', field: 'number' }],
    [{ id: 'missing' }, { __typename: 'PaymentNotFound', code: 'PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND' }],
    [{ number: 'missing' }, { __typename: 'PaymentNotFound' }]
  ]
  for (const [args, expected] of cases) t.match((await gql(app, PAYMENT, args, ADMIN)).data.payment, expected, JSON.stringify(args))
  const { id } = await createPayment(app)
  t.match((await gql(app, PAYMENT, { id })).data.payment, { __typename: 'NotAuthorized', operation: 'payment' })
  t.match((await gql(app, PAYMENTS, {})).data.payments, { __typename: 'NotAuthorized', code: 'PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED', message: /payments/ })
})

t.test('status is UNKNOWN when the gateway cannot tell; totalAmountDecimal null for a currency ISO 4217 lacks', async (t) => {
  const logs: string[] = []
  const { app } = await buildGraphqlApp({ logs })
  t.teardown(() => app.close())
  const gone = await storedPayment(app, { gatewayName: 'removed' })
  const crashing = await storedPayment(app, { gatewayName: 'provider', details: { state: 'crash' } })
  const odd = await storedPayment(app, { currencyCode: 'ZZZ' })
  t.match((await gql(app, PAYMENT, { id: gone.id }, ADMIN)).data.payment, { status: 'UNKNOWN' })
  const crashed = await gql(app, PAYMENT, { id: crashing.id }, ADMIN)
  t.match(crashed.data.payment, { status: 'UNKNOWN' })
  t.notMatch(crashed.body, SECRET)
  t.match(logs.join(''), /could not read a status/)
  t.match((await gql(app, PAYMENT, { id: odd.id }, ADMIN)).data.payment, { totalAmountDecimal: null, currencyCode: 'ZZZ' })
  const AMOUNTS = 'query ($id: ID) { payment(id: $id) { ... on Payment { status capturedAmount refundedAmount reversedAmount } } }'
  const none = { capturedAmount: null, refundedAmount: null, reversedAmount: null }
  t.same((await gql(app, AMOUNTS, { id: crashing.id }, ADMIN)).data.payment, { status: 'UNKNOWN', ...none }, 'amounts null when the gateway fails')
  t.match(logs.join(''), /could not read the amounts/)
  t.same((await gql(app, AMOUNTS, { id: gone.id }, ADMIN)).data.payment, { status: 'UNKNOWN', ...none }, 'and when the gateway is gone')
  const silent = await storedPayment(app, { gatewayName: 'statusonly' })
  t.same((await gql(app, AMOUNTS, { id: silent.id }, ADMIN)).data.payment.capturedAmount, null, 'a gateway that does not tell amounts')
  t.same((await gql(app, AMOUNTS, { id: odd.id }, ADMIN)).data.payment.capturedAmount, 0, 'the offline gateway tells them: nothing captured yet')
})

t.test('payments: newest first, cursor pagination, hasNextPage and endCursor', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const ids: string[] = []
  for (let index = 0; index < 5; index++) ids.push((await createPayment(app, { number: `N-${index}` })).id)
  const seen: string[] = []
  let after: string | undefined
  const pages: boolean[] = []
  do {
    const page = (await gql(app, PAYMENTS, { first: 2, after }, ADMIN)).data.payments
    t.equal(page.__typename, 'PaymentConnection')
    t.same(page.nodes.map((node: { id: string }) => node.id), page.edges.map((edge: { node: { id: string } }) => edge.node.id))
    t.equal(page.pageInfo.endCursor, page.edges.at(-1).cursor)
    seen.push(...page.nodes.map((node: { id: string }) => node.id))
    pages.push(page.pageInfo.hasNextPage)
    after = page.pageInfo.endCursor
    if (!page.pageInfo.hasNextPage) break
  } while (true)
  // Newest first; payments created in the same millisecond by id, highest first.
  const stored = await Promise.all(ids.map(async (id) => await app.paywire.getStorage(Payment).find(id) as Payment))
  const key = (payment: Payment) => `${payment.createdAt as string}|${payment.id as string}`
  const newestFirst = stored.sort((a, b) => key(a) < key(b) ? 1 : -1)
  t.same(seen, newestFirst.map((payment) => payment.id), 'every payment once, newest first')
  t.same(pages, [true, true, false])
  const past = (await gql(app, PAYMENTS, { first: 2, after }, ADMIN)).data.payments
  t.same(past.nodes, [])
  t.same(past.pageInfo, { hasNextPage: false, endCursor: null })
  const defaults = (await gql(app, '{ payments { ... on PaymentConnection { nodes { id } } } }', {}, ADMIN)).data.payments
  t.equal(defaults.nodes.length, 5, 'first defaults to 20')
})

t.test('payments: filters, ids, and typed errors for bad pages and foreign cursors', async (t) => {
  const { app } = await buildGraphqlApp({ graphql: { maxPageSize: 3 } })
  t.teardown(() => app.close())
  const a = await createPayment(app, { number: 'A', clientEmail: 'a@example.com', clientId: 'c1', currencyCode: 'USD' })
  const b = await createPayment(app, { number: 'B', clientEmail: 'b@example.com', clientId: 'c1' })
  const c = await storedPayment(app, { number: 'C', gatewayName: 'provider' })
  const numbers = async (filter: Record<string, unknown>, first = 3) =>
    (await gql(app, PAYMENTS, { filter, first }, ADMIN)).data.payments.nodes.map((node: { number: string }) => node.number)
  t.same(await numbers({ clientEmail: 'b@example.com' }), ['B'])
  t.same(await numbers({ clientId: 'c1' }), ['A', 'B'])
  t.same(await numbers({ currencyCode: 'usd' }), ['A'])
  t.same(await numbers({ gateway: 'provider' }), ['C'])
  t.same(await numbers({ number: 'A' }), ['A'])
  t.same(await numbers({ ids: [c.id, 'missing', a.id] }), ['C', 'A'], 'in the order asked, missing ones left out')
  t.same(await numbers({ ids: [a.id, b.id, c.id], clientId: 'c1' }), ['A', 'B'], 'ids combine with the other fields')
  const firstOfIds = (await gql(app, PAYMENTS, { filter: { ids: [a.id, b.id, c.id] }, first: 1 }, ADMIN)).data.payments
  const nextOfIds = (await gql(app, PAYMENTS, { filter: { ids: [a.id, b.id, c.id] }, first: 3, after: firstOfIds.pageInfo.endCursor }, ADMIN)).data.payments
  t.same(nextOfIds.nodes.map((node: { number: string }) => node.number), ['B', 'C'])

  const cursor = firstOfIds.pageInfo.endCursor
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ first: 4 }, 'first'],
    [{ first: 0 }, 'first'],
    [{ first: 2, after: cursor }, 'after'],
    [{ first: 2, after: 'garbage' }, 'after'],
    [{ first: 2, after: Buffer.from('{"o":-1,"f":"x"}').toString('base64url') }, 'after'],
    [{ first: 2, filter: { ids: Array.from({ length: 101 }, (_, index) => `id-${index}`) } }, 'filter.ids'],
    [{ first: 2, filter: { clientEmail: '' } }, 'filter.clientEmail']
  ]
  for (const [args, field] of cases) {
    t.match((await gql(app, PAYMENTS, args, ADMIN)).data.payments, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_VALIDATION', field }, field)
  }
})

t.test('lists cost one storage call, whatever their length; reading statuses never writes', async (t) => {
  const { app, storage } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const ids: string[] = []
  for (let index = 0; index < 30; index++) ids.push(await capturedPayment(app, { number: `L-${index}` }))

  storage.reset()
  const list = await gql(app, '{ payments(first: 30) { ... on PaymentConnection { nodes { id status details } } } }', {}, ADMIN)
  t.equal(list.data.payments.nodes.length, 30)
  t.ok(list.data.payments.nodes.every((node: { status: string }) => node.status === 'CAPTURED'))
  t.same(storage.calls, { find: 0, findMany: 1, findBy: 0, update: 0 }, 'the search, then the page in one batch')

  storage.reset()
  const byIds = await gql(app, 'query ($ids: [ID!]) { payments(filter: { ids: $ids }, first: 30) { ... on PaymentConnection { nodes { id } } } }', { ids }, ADMIN)
  t.equal(byIds.data.payments.nodes.length, 30)
  t.same(storage.calls, { find: 0, findMany: 1, findBy: 0, update: 0 })

  storage.reset()
  const aliases = ids.slice(0, 10).map((id, index) => `p${index}: payment(id: "${id}") { ... on Payment { id status } }`).join('\n')
  const many = await gql(app, `{ ${aliases} again: payment(id: "${ids[0] as string}") { ... on Payment { id } } }`, {}, ADMIN)
  t.equal(many.data.p9.id, ids[9])
  t.equal(many.data.again.id, ids[0])
  t.same(storage.calls, { find: 0, findMany: 1, findBy: 0, update: 0 }, 'ten payments, one batch, each fetched once')
})

t.test('gateways: names, factories and what each supports, without their options', async (t) => {
  const logs: string[] = []
  const { app } = await buildGraphqlApp({
    logs,
    paywire: { configure: (builder) => { builder.addGatewayFactory('broken', new BrokenGatewayFactory()) } }
  })
  t.teardown(() => app.close())
  // Added after boot, which would have refused to start with a gateway that cannot be built.
  app.paywire.addGateway('broken', { factory: 'broken', client_secret: SECRET })
  app.paywire.addGateway('manual', new Gateway())
  const answer = await gql(app, '{ gateways { name factory supports { capture authorize refund cancel sync notify } } }')
  t.same(answer.data.gateways, [
    { name: 'cash', factory: 'offline', supports: { capture: true, authorize: true, refund: true, cancel: true, sync: false, notify: false } },
    { name: 'provider', factory: 'provider', supports: { capture: false, authorize: false, refund: true, cancel: false, sync: false, notify: false } },
    { name: 'statusonly', factory: 'statusonly', supports: { capture: false, authorize: false, refund: false, cancel: false, sync: false, notify: false } },
    { name: 'broken', factory: 'broken', supports: null },
    { name: 'manual', factory: null, supports: { capture: false, authorize: false, refund: false, cancel: false, sync: false, notify: false } }
  ])
  t.notMatch(answer.body, SECRET)
  t.match(logs.join(''), /gateway could not be built/)
})
