import {
  Payment, encodeSearchCursor, errorCodes, isErrorCode, paymentSearchOf, type HumanStatusValue, type PaymentQuery
} from '../core/engine/index.ts'
import { loaderOf, type Context, type Runtime } from './context.ts'
import { withFields } from './errors.ts'
import type { PaymentFilter } from './inputs.ts'

/*
 * payments() through the Payment storage's PaymentSearch (docs/storages.md): newest first,
 * paged by a keyset cursor that stays right while payments are added. Used whenever the filter
 * looks nothing up by ids, number, clientId or clientEmail (those go through findBy, oldest
 * first, as before: see queries.ts).
 */

/** Filter fields only the search answers; they do not combine with the lookups. */
export const SEARCH_FIELDS = ['status', 'createdFrom', 'createdTo', 'updatedFrom', 'updatedTo', 'amountMin', 'amountMax', 'providerId', 'needsAttention'] as const
/** Filter fields findBy answers (ids: loaded by id). */
export const LOOKUP_FIELDS = ['ids', 'number', 'clientId', 'clientEmail'] as const

interface SearchCursorData {
  k: string
  f: string
}

function badCursor (): Error {
  return withFields(new errorCodes.PAYWIRE_ERR_VALIDATION('after', 'is not a cursor of this query (filters must stay the same between pages)'), { field: 'after' })
}

function encode (payment: Payment, filter: string): string {
  const position = encodeSearchCursor({ createdAt: new Date(payment.createdAt ?? 0).toISOString(), id: payment.id as string })
  return Buffer.from(JSON.stringify({ k: position, f: filter } satisfies SearchCursorData)).toString('base64url')
}

/** The search's own cursor inside a GraphQL cursor of this filter. */
function decode (cursor: string | undefined, filter: string): string | undefined {
  if (cursor === undefined) return undefined
  let data: Partial<SearchCursorData> | null = null
  try {
    data = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    // Reported below, like any cursor we did not make.
  }
  if (data === null || typeof data !== 'object' || typeof data.k !== 'string' || data.f !== filter) throw badCursor()
  return data.k
}

function queryOf (filter: PaymentFilter): Omit<PaymentQuery, 'first'> {
  const query: Omit<PaymentQuery, 'first'> = {
    status: filter.status?.map((status) => status.toLowerCase() as HumanStatusValue),
    gatewayName: filter.gateway,
    currencyCode: filter.currencyCode?.toUpperCase()
  }
  for (const field of SEARCH_FIELDS) if (field !== 'status' && filter[field] !== undefined) Object.assign(query, { [field]: filter[field] })
  return query
}

export async function searchPage (runtime: Runtime, context: Context, filter: PaymentFilter, key: string, first: number, after: string | undefined) {
  const storage = runtime.paywire.getStorage(Payment)
  const search = paymentSearchOf(storage, storage.modelName)
  const position = decode(after, key)
  let page
  try {
    page = await search.searchPayments({ ...queryOf(filter), first, ...(position === undefined ? {} : { after: position }) })
  } catch (error) {
    // The search names the query's field; GraphQL names the argument.
    const field = (error as { field?: unknown }).field
    if (isErrorCode(error, 'PAYWIRE_ERR_VALIDATION') && typeof field === 'string') {
      throw withFields(error as Error, { field: field === 'after' ? 'after' : `filter.${field}` })
    }
    throw error
  }
  const loader = loaderOf(runtime, context)
  // A payment deleted since the search found it is left out.
  const nodes = (await loader.loadMany(page.ids)).filter((payment): payment is Payment => payment !== null)
  const edges = nodes.map((node) => ({ node, cursor: encode(node, key) }))
  return {
    __typename: 'PaymentConnection',
    edges,
    nodes,
    pageInfo: { hasNextPage: page.endCursor !== undefined, endCursor: edges.at(-1)?.cursor ?? null }
  }
}
