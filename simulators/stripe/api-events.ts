import type Stripe from 'stripe'
import type { FastifyInstance } from 'fastify'
import { invalidParam, invalidRequest, missingParam, noSuch } from './errors.ts'
import type { FormObject } from './form.ts'
import { allowOnly, bool, int, metadata, obj, requiredStr, str, stringList } from './params.ts'
import { body, json, query } from './protocol.ts'
import { page } from './render.ts'
import type { Runtime } from './runtime.ts'

/*
 * Events (https://docs.stripe.com/api/events/list, https://docs.stripe.com/api/events/retrieve)
 * and webhook endpoints (https://docs.stripe.com/api/webhook_endpoints): the signing `secret` is
 * returned only by create.
 */

/** `created`: a unix time, or a range with gt/gte/lt/lte (https://docs.stripe.com/api/events/list#list_events-created). */
function createdFilter (params: FormObject): (created: number) => boolean {
  const value = params.created
  if (value === undefined) return () => true
  if (typeof value === 'string') {
    const exact = int(params, 'created') as number
    return (created) => created === exact
  }
  const range = obj(params, 'created') as FormObject
  allowOnly(range, ['gt', 'gte', 'lt', 'lte'], 'created')
  const bound = (name: string): number | undefined => int(range, name, `created[${name}]`)
  const [gt, gte, lt, lte] = [bound('gt'), bound('gte'), bound('lt'), bound('lte')]
  return (created) => (gt === undefined || created > gt) && (gte === undefined || created >= gte) &&
    (lt === undefined || created < lt) && (lte === undefined || created <= lte)
}

/** `type`: one name, `*` matching any part (`payment_intent.*`); `types`: up to 20 exact names. */
function typeFilter (params: FormObject): (type: string) => boolean {
  const type = str(params, 'type')
  const types = stringList(params, 'types')
  if (type !== undefined && types !== undefined) throw invalidRequest('You may pass either `type` or `types`, but not both.', 'parameters_exclusive', 'types')
  if (types !== undefined) {
    if (types.length > 20) throw invalidParam('types', 'You may pass at most 20 types.')
    return (name) => types.includes(name)
  }
  if (type === undefined) return () => true
  const pattern = new RegExp(`^${type.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^]*')}$`)
  return (name) => pattern.test(name)
}

export function registerEventRoutes (app: FastifyInstance, runtime: Runtime): void {
  const { store, events, webhooks } = runtime

  app.get('/v1/events', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['created', 'delivery_success', 'ending_before', 'expand', 'limit', 'starting_after', 'type', 'types'])
    const created = createdFilter(params)
    const type = typeFilter(params)
    // delivery_success: whether every webhook was delivered; false lists events still pending or failed.
    const delivered = bool(params, 'delivery_success')
    const items = events.all().reverse().filter((event) => created(event.created) && type(event.type) &&
      (delivered === undefined || (event.pending_webhooks === 0) === delivered))
    return await json(reply, page(store, items, params, '/v1/events'))
  })

  app.get<{ Params: { id: string } }>('/v1/events/:id', async (request, reply) => {
    allowOnly(query(request), ['expand'])
    const event = events.get(request.params.id)
    if (event === undefined) throw noSuch('event', request.params.id)
    return await json(reply, event)
  })

  // https://docs.stripe.com/api/webhook_endpoints/create
  app.post('/v1/webhook_endpoints', async (request, reply) => {
    const params = body(request)
    allowOnly(params, ['api_version', 'connect', 'description', 'enabled_events', 'expand', 'metadata', 'url'])
    const url = requiredStr(params, 'url')
    if (!URL.canParse(url)) throw invalidParam('url', `Invalid URL: ${url}`)
    const enabledEvents = stringList(params, 'enabled_events')
    if (enabledEvents === undefined || enabledEvents.length === 0) throw missingParam('enabled_events')
    const record = webhooks.addEndpoint({ url, enabledEvents, description: str(params, 'description') ?? null, metadata: metadata(params) ?? {}, apiVersion: str(params, 'api_version') ?? null })
    return await json(reply, { ...record.endpoint, secret: record.secrets[0] })
  })

  app.get('/v1/webhook_endpoints', async (request, reply) => {
    const params = query(request)
    allowOnly(params, ['ending_before', 'expand', 'limit', 'starting_after'])
    const items = [...webhooks.endpoints.values()].reverse().map((record) => record.endpoint)
    return await json(reply, page(store, items, params, '/v1/webhook_endpoints'))
  })

  app.get<{ Params: { id: string } }>('/v1/webhook_endpoints/:id', async (request, reply) => {
    allowOnly(query(request), ['expand'])
    const record = webhooks.endpoints.get(request.params.id)
    if (record === undefined) throw noSuch('webhook_endpoint', request.params.id)
    return await json(reply, record.endpoint)
  })

  // https://docs.stripe.com/api/webhook_endpoints/delete
  app.delete<{ Params: { id: string } }>('/v1/webhook_endpoints/:id', async (request, reply) => {
    if (!webhooks.removeEndpoint(request.params.id)) throw noSuch('webhook_endpoint', request.params.id)
    const deleted: Stripe.DeletedWebhookEndpoint = { id: request.params.id, object: 'webhook_endpoint', deleted: true }
    return await json(reply, deleted)
  })
}
