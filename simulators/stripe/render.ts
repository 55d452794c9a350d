import type Stripe from 'stripe'
import { invalidParam, invalidRequest } from './errors.ts'
import type { FormObject } from './form.ts'
import { int, str, stringList } from './params.ts'
import type { Store } from './store.ts'

/*
 * Expanding (https://docs.stripe.com/api/expanding_objects): `expand[]=latest_charge` replaces an
 * id with its object, `payment_intent.latest_charge` goes deeper, and list calls prefix paths
 * with `data.`. Only the fields the gateway needs are expandable here; any other answers "This
 * property cannot be expanded". Lists (https://docs.stripe.com/api/pagination) are newest first,
 * `limit` 1 to 100 (default 10), paged with `starting_after` or `ending_before`, with `has_more`.
 */

type Renderable = Stripe.PaymentIntent | Stripe.Charge | Stripe.Refund | Stripe.Dispute | Stripe.Checkout.Session | Stripe.Event | Stripe.WebhookEndpoint

const EXPANDABLE: Record<string, readonly string[]> = {
  payment_intent: ['latest_charge'],
  charge: ['payment_intent'],
  refund: ['charge', 'payment_intent'],
  dispute: ['charge', 'payment_intent'],
  'checkout.session': ['payment_intent']
}

function lookup (store: Store, id: string): Renderable | undefined {
  if (id.startsWith('pi_')) return store.intents.get(id)?.intent
  if (id.startsWith('ch_')) return store.charges.get(id)
  return undefined
}

function expandOne (store: Store, target: Record<string, unknown>, path: string[], full: string): void {
  const [field, ...rest] = path as [string, ...string[]]
  if (!(EXPANDABLE[target.object as string] ?? []).includes(field)) throw invalidRequest(`This property cannot be expanded (${full}).`, undefined, 'expand')
  const value = target[field]
  if (typeof value === 'string') target[field] = structuredClone(lookup(store, value))
  const child = target[field]
  if (rest.length > 0 && child !== null && typeof child === 'object') expandOne(store, child as Record<string, unknown>, rest, full)
}

/** A copy of the object, with the `expand[]` paths of the request expanded. */
export function render<T extends Renderable> (store: Store, object: T, expand: readonly string[]): T {
  const copy = structuredClone(object)
  for (const path of expand) expandOne(store, copy as unknown as Record<string, unknown>, path.split('.'), path)
  return copy
}

export function expandParam (params: FormObject): string[] {
  return stringList(params, 'expand') ?? []
}

export interface ListPage<T> {
  object: 'list'
  data: T[]
  has_more: boolean
  url: string
}

/** One page of `items` (given newest first), each rendered with the `data.`-prefixed expansions. */
export function page<T extends Renderable & { id: string }> (store: Store, items: T[], params: FormObject, url: string): ListPage<T> {
  const limit = int(params, 'limit') ?? 10
  if (limit < 1 || limit > 100) throw invalidParam('limit', 'Invalid limit: must be between 1 and 100')
  const after = str(params, 'starting_after')
  const before = str(params, 'ending_before')
  if (after !== undefined && before !== undefined) throw invalidRequest('You may only specify one of these parameters: ending_before, starting_after.', 'parameters_exclusive')
  let window = items
  if (after !== undefined) {
    const index = items.findIndex((item) => item.id === after)
    if (index === -1) throw invalidParam('starting_after', `No such object: '${after}'`)
    window = items.slice(index + 1)
  }
  if (before !== undefined) {
    const index = items.findIndex((item) => item.id === before)
    if (index === -1) throw invalidParam('ending_before', `No such object: '${before}'`)
    window = items.slice(Math.max(0, index - limit), index)
  }
  const expand = expandParam(params).map((path) => {
    if (!path.startsWith('data.')) throw invalidRequest(`This property cannot be expanded (${path}).`, undefined, 'expand')
    return path.slice(5)
  })
  const data = window.slice(0, limit).map((item) => render(store, item, expand))
  const hasMore = before !== undefined ? items.indexOf(window[0] as T) > 0 : window.length > limit
  return { object: 'list', data, has_more: hasMore, url }
}
