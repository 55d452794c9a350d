import t from 'tap'
import { MemoryStorage, Payment, errorCodes, type Storage } from '../../../plugins/core/index.ts'
import { ADMIN, buildGraphqlApp, capturedPayment, gql, storedPayment } from './fixtures.ts'

const PAYMENTS = `query Payments($filter: PaymentFilter, $first: Int, $after: String) {
  payments(filter: $filter, first: $first, after: $after) {
    __typename
    ... on PaymentConnection { nodes { id number status } edges { cursor } pageInfo { hasNextPage endCursor } }
    ... on PaywireError { code message }
    ... on InvalidInput { field }
  }
}`

const { app } = await buildGraphqlApp()
t.teardown(() => app.close())

// Created at known times, so the order is known; statuses from the offline gateway.
const at = (minute: number) => new Date(Date.parse('2026-01-05T10:00:00Z') + minute * 60_000).toISOString()
const captured = await capturedPayment(app, { number: 'CAPTURED', totalAmount: 500 })
const storage = app.paywire.getStorage(Payment)
const stored = await storage.find(captured) as Payment
stored.createdAt = at(1)
await storage.update(stored)
const pending = await storedPayment(app, { number: 'PENDING', createdAt: at(2), totalAmount: 2500, details: { status: 'pending' } })
const usd = await storedPayment(app, { number: 'USD', createdAt: at(3), currencyCode: 'USD', totalAmount: 1000 })
const other = await storedPayment(app, { number: 'OTHER', createdAt: at(4), gatewayName: 'provider', details: { state: 'COMPLETED' } })

async function numbers (filter: Record<string, unknown>, first = 10): Promise<string[]> {
  const answer = (await gql(app, PAYMENTS, { filter, first }, ADMIN)).data.payments
  if (answer.__typename !== 'PaymentConnection') throw new Error(JSON.stringify(answer))
  return answer.nodes.map((node: { number: string }) => node.number)
}

t.test('payments: the search filters, newest first, each alone and combined', async (t) => {
  t.same(await numbers({}), ['OTHER', 'USD', 'PENDING', 'CAPTURED'])
  t.same(await numbers({ status: ['CAPTURED'] }), ['CAPTURED'], 'the status the gateway read when the payment was written')
  t.same(await numbers({ status: ['UNKNOWN'] }), ['OTHER'], 'a gateway without a PaymentStateReader: unknown to the search')
  t.same(await numbers({ status: ['PENDING', 'NEW'] }), ['USD', 'PENDING'])
  t.same(await numbers({ gateway: 'provider' }), ['OTHER'])
  t.same(await numbers({ currencyCode: 'usd' }), ['USD'])
  t.same(await numbers({ createdFrom: at(2), createdTo: at(3) }), ['USD', 'PENDING'])
  t.same(await numbers({ updatedFrom: other.updatedAt, gateway: 'provider' }), ['OTHER'])
  t.same(await numbers({ updatedTo: '2000-01-01T00:00:00Z' }), [])
  t.same(await numbers({ amountMin: 1000, amountMax: 2500, currencyCode: 'EUR' }), ['OTHER', 'PENDING'])
  t.same(await numbers({ needsAttention: true }), [], 'nothing pending for long: the default threshold is 15 minutes')
  t.same(await numbers({ needsAttention: false, status: ['PENDING'] }), ['PENDING'])
  t.same(await numbers({ providerId: 'none' }), [])
  t.same(await numbers({ ids: [usd.id, pending.id], gateway: 'cash' }), ['USD', 'PENDING'], 'ids still look up, in the order given')
  t.same(await numbers({ number: 'USD' }), ['USD'], 'and number through findBy')
})

t.test('payments: search pages by cursor; a cursor belongs to its filter', async (t) => {
  const first = (await gql(app, PAYMENTS, { first: 3 }, ADMIN)).data.payments
  t.same(first.nodes.map((node: { number: string }) => node.number), ['OTHER', 'USD', 'PENDING'])
  t.equal(first.pageInfo.hasNextPage, true)
  t.equal(first.pageInfo.endCursor, first.edges.at(-1).cursor)
  const second = (await gql(app, PAYMENTS, { first: 3, after: first.pageInfo.endCursor }, ADMIN)).data.payments
  t.same(second.nodes.map((node: { number: string }) => node.number), ['CAPTURED'])
  t.same(second.pageInfo, { hasNextPage: false, endCursor: second.edges[0].cursor })
  const fromEdge = (await gql(app, PAYMENTS, { first: 1, after: first.edges[0].cursor }, ADMIN)).data.payments
  t.same(fromEdge.nodes.map((node: { number: string }) => node.number), ['USD'], 'every edge\'s cursor pages on from it')
  const foreign = await gql(app, PAYMENTS, { first: 3, after: first.pageInfo.endCursor, filter: { status: ['NEW'] } }, ADMIN)
  t.match(foreign.data.payments, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_VALIDATION', field: 'after' })
  const forged = JSON.parse(Buffer.from(first.pageInfo.endCursor, 'base64url').toString())
  const inner = Buffer.from(JSON.stringify({ ...forged, k: 'not-a-position' })).toString('base64url')
  t.match((await gql(app, PAYMENTS, { first: 3, after: inner }, ADMIN)).data.payments, { __typename: 'InvalidInput', field: 'after' })
  t.match((await gql(app, PAYMENTS, { first: 3, after: 'garbage' }, ADMIN)).data.payments, { __typename: 'InvalidInput', field: 'after' })
})

t.test('payments: bad search input is a typed error naming the field', async (t) => {
  const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
    [{ amountMin: 10, amountMax: 5 }, { __typename: 'InvalidInput', code: 'PAYWIRE_ERR_VALIDATION', field: 'filter.amountMin' }],
    [{ amountMin: -1 }, { __typename: 'InvalidInput', field: 'filter.amountMin' }],
    [{ createdFrom: 'last tuesday' }, { __typename: 'InvalidInput', field: 'filter.createdFrom', message: /ISO 8601/ }],
    [{ updatedFrom: at(5), updatedTo: at(1) }, { __typename: 'InvalidInput', field: 'filter.updatedFrom' }],
    [{ providerId: 'has space' }, { __typename: 'InvalidInput', field: 'filter.providerId' }],
    [{ clientEmail: 'a@example.com', status: ['CAPTURED'] }, { __typename: 'InvalidInput', field: 'filter.status', message: /cannot be combined/ }]
  ]
  for (const [filter, expected] of cases) {
    t.match((await gql(app, PAYMENTS, { filter, first: 5 }, ADMIN)).data.payments, expected, JSON.stringify(filter))
  }
  const badEnum = await gql(app, PAYMENTS, { filter: { status: ['PAID'] }, first: 5 }, ADMIN)
  t.match(badEnum.errors?.[0]?.message, /PaymentStatus/, 'an unknown status is refused by the schema')
})

t.test('payments: a Payment storage without PaymentSearch answers a coded error, never a scan', async (t) => {
  const memory = new MemoryStorage(Payment)
  const plain: Storage<Payment> = {
    modelName: 'Payment',
    create: () => new Payment(),
    support: (model: unknown): model is Payment => model instanceof Payment,
    update: (model) => memory.update(model),
    delete: (model) => memory.delete(model),
    find: (id) => memory.find(id),
    findMany: (ids) => memory.findMany(ids),
    findBy: (criteria, options) => memory.findBy(criteria, options),
    identify: (model) => memory.identify(model),
    versionOf: (model) => memory.versionOf(model)
  }
  const logs: string[] = []
  const { app } = await buildGraphqlApp({ logs, paywire: { storages: [[Payment, plain]] } })
  t.teardown(() => app.close())
  const answer = await gql(app, PAYMENTS, { first: 5, filter: { status: ['CAPTURED'] } }, ADMIN)
  t.equal(answer.data, null, 'payments is non-null: the error reaches the top')
  t.match(answer.errors?.[0], { message: /does not implement PaymentSearch/, extensions: { code: 'PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED' } })
  t.match(logs.join(''), /PAYWIRE_ERR_PAYMENT_SEARCH_UNSUPPORTED/)
  t.same((await gql(app, PAYMENTS, { first: 5, filter: { clientEmail: 'x@example.com' } }, ADMIN)).data.payments.nodes, [], 'lookups still work')
})

t.test('payments: a storage failing under a search answers its own code', async (t) => {
  class DownStorage extends MemoryStorage<Payment> {
    override async searchPayments (): Promise<never> {
      throw new errorCodes.PAYWIRE_ERR_STORAGE_UNAVAILABLE('Test')
    }
  }
  const { app } = await buildGraphqlApp({ logs: [], paywire: { storages: [[Payment, new DownStorage(Payment)]] } })
  t.teardown(() => app.close())
  const answer = await gql(app, PAYMENTS, { first: 5 }, ADMIN)
  t.match(answer.errors?.[0], { extensions: { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE' } })
})
