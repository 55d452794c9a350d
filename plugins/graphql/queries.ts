import {
  Payment, errorCodes, matchesCriteria, type Criteria, type Paywire
} from '../core/engine/index.ts'
import { assertAuthorized, loaderOf, logOf, type Context, type Runtime } from './context.ts'
import { decodeCursor, encodeCursor, filterKey } from './cursor.ts'
import { answer, withFields } from './errors.ts'
import {
  PaymentArgs, PaymentOutcomeArgs, PaymentsArgs, check, withoutNulls, type PaymentFilter
} from './inputs.ts'
import { capabilities, graphqlStatus, readStatus } from './payment-fields.ts'
import { LOOKUP_FIELDS, SEARCH_FIELDS, searchPage } from './search.ts'
import { PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND } from './codes.ts'

function paymentNotFound (): Error {
  return new PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND()
}

function invalid (field: string, problem: string): Error {
  return withFields(new errorCodes.PAYWIRE_ERR_VALIDATION(field, problem), { field })
}

/** Filter fields as storage criteria (keys are Payment fields). */
function criteriaOf (filter: PaymentFilter): Criteria {
  const criteria: Criteria = {}
  if (filter.gateway !== undefined) criteria.gatewayName = filter.gateway
  for (const field of ['number', 'clientId', 'clientEmail'] as const) {
    if (filter[field] !== undefined) criteria[field] = filter[field]
  }
  if (filter.currencyCode !== undefined) criteria.currencyCode = filter.currencyCode.toUpperCase()
  return criteria
}

async function findPayments (runtime: Runtime, context: Context, filter: PaymentFilter, offset: number, limit: number): Promise<Payment[]> {
  const loader = loaderOf(runtime, context)
  const criteria = criteriaOf(filter)
  if (filter.ids === undefined) {
    const found = await runtime.paywire.getStorage(Payment).findBy(criteria, { offset, limit })
    return found.map((payment) => loader.prime(payment))
  }
  const loaded = await loader.loadMany(filter.ids)
  const matching = loaded.filter((payment): payment is Payment =>
    payment !== null && matchesCriteria(payment as unknown as Record<string, unknown>, criteria))
  return matching.slice(offset, offset + limit)
}

function gatewayEntry (paywire: Paywire, name: string, context: Context) {
  let supports = null
  try {
    supports = capabilities(paywire.getGateway(name))
  } catch (error) {
    logOf(context).error({ err: error, gateway: name }, 'paywire-graphql: gateway could not be built')
  }
  return { name, factory: paywire.getGatewayOptions(name)?.factory ?? null, supports }
}

export function queryResolvers (runtime: Runtime) {
  const { paywire } = runtime
  return {
    payment: (_root: unknown, args: unknown, context: Context) => answer('PaymentResult', logOf(context), async () => {
      await assertAuthorized(runtime, context, 'payment')
      const { id, number } = check(PaymentArgs, withoutNulls(args))
      if ((id === undefined) === (number === undefined)) throw invalid('id', 'give exactly one of id and number')
      const payment = id !== undefined
        ? await loaderOf(runtime, context).load(id)
        : (await paywire.getStorage(Payment).findBy({ number }, { limit: 1 }))[0]
      if (payment === null || payment === undefined) throw paymentNotFound()
      return loaderOf(runtime, context).prime(payment)
    }),

    payments: (_root: unknown, args: unknown, context: Context) => answer('PaymentsResult', logOf(context), async () => {
      await assertAuthorized(runtime, context, 'payments')
      const { filter = {}, first, after } = check(PaymentsArgs, withoutNulls(args))
      if (first > runtime.maxPageSize) throw invalid('first', `must be at most ${runtime.maxPageSize}`)
      const key = filterKey(filter)
      // Lookups (ids, number, clientId, clientEmail) go through findBy, oldest first; anything else is a search, newest first.
      if (!LOOKUP_FIELDS.some((field) => filter[field] !== undefined)) return await searchPage(runtime, context, filter, key, first, after)
      const searched = SEARCH_FIELDS.find((field) => filter[field] !== undefined)
      if (searched !== undefined) throw invalid(`filter.${searched}`, 'cannot be combined with ids, number, clientId or clientEmail, which look payments up')
      const offset = decodeCursor(after, key)
      // One more than asked tells whether there is a next page.
      const found = await findPayments(runtime, context, filter, offset, first + 1)
      const nodes = found.slice(0, first)
      const edges = nodes.map((node, index) => ({ node, cursor: encodeCursor(offset + index + 1, key) }))
      return {
        __typename: 'PaymentConnection',
        edges,
        nodes,
        pageInfo: { hasNextPage: found.length > first, endCursor: edges.at(-1)?.cursor ?? null }
      }
    }),

    gateways: (_root: unknown, _args: unknown, context: Context) =>
      paywire.getGatewayNames().map((name) => gatewayEntry(paywire, name, context)),

    paymentOutcome: (_root: unknown, args: unknown, context: Context) => answer('PaymentOutcomeResult', logOf(context), async () => {
      const { token: hash } = check(PaymentOutcomeArgs, args)
      const token = await paywire.getTokenStorage().find(hash)
      const storage = paywire.getStorage(Payment)
      // Only after tokens: the done page's capability, never a capture token's.
      if (token === null || token.kind !== 'after' || token.details?.modelName !== storage.modelName) {
        throw new errorCodes.PAYWIRE_ERR_TOKEN_NOT_FOUND()
      }
      const payment = await loaderOf(runtime, context).load(token.details.id)
      if (payment === null) throw new errorCodes.PAYWIRE_ERR_TOKEN_NOT_FOUND()
      return {
        __typename: 'PaymentOutcome',
        status: graphqlStatus(await readStatus(paywire, payment)),
        number: payment.number,
        totalAmount: payment.totalAmount,
        currencyCode: payment.currencyCode
      }
    })
  }
}
