import t from 'tap'
import type Stripe from 'stripe'
import { call, startSimulator } from './helpers.ts'

/* GET /v1/events: filters and paging (https://docs.stripe.com/api/events/list). */

t.test('events: every change is an event, listed newest first with filters and cursors', async (t) => {
  const start = 1_750_000_000_000
  const { app, stripe, origin } = await startSimulator(t, { now: () => start })
  const first = await stripe.paymentIntents.create({ amount: 100, currency: 'eur' }, { idempotencyKey: 'order-1' })
  app.simulator.clock.advance(10_000)
  await stripe.paymentIntents.create({ amount: 200, currency: 'eur', payment_method: 'pm_card_visa', confirm: true })
  app.simulator.clock.advance(10_000)
  await stripe.paymentIntents.cancel(first.id)

  const all = await stripe.events.list({ limit: 100 })
  t.same(all.data.map((event) => event.type), ['payment_intent.canceled', 'payment_intent.succeeded', 'charge.succeeded', 'payment_intent.created', 'payment_intent.created'])
  const created = all.data.at(-1) as Stripe.Event
  t.match(created, { object: 'event', api_version: '2026-10-28.endive', livemode: false, pending_webhooks: 0, request: { id: first.lastResponse.requestId, idempotency_key: 'order-1' }, data: { object: { id: first.id, status: 'requires_payment_method' } } })
  t.match(created.id, /^evt_/)
  t.equal(created.created, start / 1000)
  t.same(await stripe.events.retrieve(created.id).then(({ lastResponse, ...event }) => event), created)
  t.match(await stripe.events.retrieve('evt_nope').catch((error: Stripe.errors.StripeError) => error), { statusCode: 404, code: 'resource_missing' })

  const ids = (list: Stripe.ApiList<Stripe.Event>): string[] => list.data.map((event) => event.type)
  t.same(ids(await stripe.events.list({ type: 'payment_intent.*' })), ['payment_intent.canceled', 'payment_intent.succeeded', 'payment_intent.created', 'payment_intent.created'])
  t.same(ids(await stripe.events.list({ type: '*.succeeded' })), ['payment_intent.succeeded', 'charge.succeeded'])
  t.same(ids(await stripe.events.list({ type: 'charge.succeeded' })), ['charge.succeeded'])
  t.same(ids(await stripe.events.list({ types: ['payment_intent.canceled', 'charge.succeeded'] })), ['payment_intent.canceled', 'charge.succeeded'])
  const t0 = start / 1000
  t.same(ids(await stripe.events.list({ created: { gt: t0 } })), ['payment_intent.canceled', 'payment_intent.succeeded', 'charge.succeeded', 'payment_intent.created'])
  t.same(ids(await stripe.events.list({ created: { gte: t0 + 10, lt: t0 + 20 } })), ['payment_intent.succeeded', 'charge.succeeded', 'payment_intent.created'])
  t.same(ids(await stripe.events.list({ created: { lte: t0 } })), ['payment_intent.created'])
  t.same(ids(await stripe.events.list({ created: t0 + 20 })), ['payment_intent.canceled'])

  const page1 = await stripe.events.list({ limit: 2 })
  t.equal(page1.has_more, true)
  t.equal(page1.url, '/v1/events')
  const page2 = await stripe.events.list({ limit: 2, starting_after: page1.data[1]?.id })
  t.same(page2.data.map((event) => event.id), all.data.slice(2, 4).map((event) => event.id))
  const page3 = await stripe.events.list({ limit: 2, starting_after: page2.data[1]?.id })
  t.equal(page3.data.length, 1)
  t.equal(page3.has_more, false)
  const back = await stripe.events.list({ limit: 2, ending_before: page3.data[0]?.id })
  t.same(back.data.map((event) => event.id), page2.data.map((event) => event.id))
  t.equal(back.has_more, true)
  t.same((await stripe.events.list({ ending_before: all.data[1]?.id })).data.map((event) => event.id), [all.data[0]?.id])
  t.equal((await stripe.events.list({ ending_before: all.data[1]?.id })).has_more, false)
  const everything: string[] = []
  for await (const event of stripe.events.list({ limit: 2 })) everything.push(event.id)
  t.same(everything, all.data.map((event) => event.id), 'the SDK auto-pages through starting_after')

  const refuse = async (path: string): Promise<unknown> => (await call(origin, 'GET', path)).body
  t.match(await refuse('/v1/events?limit=0'), { error: { param: 'limit' } })
  t.match(await refuse('/v1/events?limit=101'), { error: { param: 'limit' } })
  t.match(await refuse('/v1/events?starting_after=evt_nope'), { error: { param: 'starting_after' } })
  t.match(await refuse('/v1/events?ending_before=evt_nope'), { error: { param: 'ending_before' } })
  t.match(await refuse(`/v1/events?starting_after=${created.id}&ending_before=${created.id}`), { error: { code: 'parameters_exclusive' } })
  t.match(await refuse('/v1/events?type=a&types[]=b'), { error: { code: 'parameters_exclusive' } })
  t.match(await refuse(`/v1/events?${Array.from({ length: 21 }, (_, i) => `types[]=t${i}`).join('&')}`), { error: { param: 'types' } })
  t.match(await refuse('/v1/events?created[after]=1'), { error: { code: 'parameter_unknown', param: 'created[after]' } })
  t.match(await refuse('/v1/events?created[gt]=soon'), { error: { code: 'parameter_invalid_integer', param: 'created[gt]' } })
  t.match(await refuse('/v1/events?expand[]=data.request'), { error: { param: 'expand' } })
  t.match(await refuse('/v1/events?expand[]=request'), { error: { param: 'expand' } })
  t.match(await refuse('/v1/events?delivery_success=yes'), { error: { param: 'delivery_success' } })
  t.match(await refuse('/v1/events?created[gt=1'), { error: { code: 'parameter_unknown' } })
  t.match(await refuse('/v1/events?order=asc'), { error: { code: 'parameter_unknown', param: 'order' } })
  t.match(await refuse('/v1/charges?expand[]=data.payment_intent&limit=1'), { object: 'list' })
})
