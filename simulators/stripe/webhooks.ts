import type Stripe from 'stripe'
import type { EventLog } from './events.ts'
import { newId, newWebhookSecret } from './ids.ts'
import { signatureHeader } from './signature.ts'
import type { Store } from './store.ts'

/*
 * Webhook endpoints and signed deliveries (https://docs.stripe.com/webhooks). Each event goes to
 * every enabled endpoint whose `enabled_events` lists its type or `*`
 * (https://docs.stripe.com/api/webhook_endpoints/object), as a POST of the event's JSON signed in
 * `Stripe-Signature`. A non-2xx answer, a network error or a timeout is retried with backoff
 * (https://docs.stripe.com/webhooks#automatic-retries: "in a sandbox, three times over a few
 * hours"); retries run on the simulated clock, so a test moves time forward to trigger them.
 * Deliveries to one endpoint go one at a time, in event order, unless a control reorders them.
 */

export interface EndpointRecord {
  endpoint: Stripe.WebhookEndpoint
  /** The current secret first; a rolled one stays valid beside it. */
  secrets: string[]
}

export type DeliveryStatus = 'pending' | 'sending' | 'held' | 'scheduled' | 'delivered' | 'failed' | 'dropped'

export interface DeliveryAttempt {
  /** Simulated epoch ms. */
  at: number
  statusCode?: number
  error?: string
}

export interface Delivery {
  id: string
  eventId: string
  eventType: string
  endpointId: string
  url: string
  status: DeliveryStatus
  /** A redelivery or a duplicate: not counted in the event's `pending_webhooks`. */
  extra: boolean
  attempts: DeliveryAttempt[]
  /** When a `scheduled` delivery is due (simulated epoch ms). */
  dueAt?: number
  /** The last body and signature header sent. */
  body?: string
  signature?: string
}

export interface DeliveryOptions {
  /** Delays before each retry, in simulated ms; their count is the number of retries. */
  retryDelaysMs: readonly number[]
  /** Real-time limit of one attempt. */
  timeoutMs: number
}

export interface EndpointInit {
  url: string
  enabledEvents?: readonly string[]
  secret?: string
  description?: string | null
  metadata?: Record<string, string>
  apiVersion?: string | null
}

export interface WebhookEngine {
  readonly endpoints: Map<string, EndpointRecord>
  addEndpoint: (init: EndpointInit) => EndpointRecord
  removeEndpoint: (id: string) => boolean
  rollSecret: (id: string) => string
  deliveries: (filter?: { eventId?: string, endpointId?: string }) => Delivery[]
  /** The next `count` deliveries are lost on the way (never sent, never retried). */
  dropNext: (count?: number) => void
  /** The next `count` deliveries are each sent twice. */
  duplicateNext: (count?: number) => void
  /** The next `count` deliveries wait `ms` of simulated time before their first attempt. */
  delayNext: (ms: number, count?: number) => void
  pause: () => void
  resume: (options?: { reverse?: boolean }) => void
  redeliver: (eventId: string, endpointId?: string) => Delivery[]
  /** Resolves once nothing is being sent or due; held and scheduled deliveries do not count. */
  waitForIdle: () => Promise<void>
  /** Runs deliveries whose time has come (after the clock moved). */
  tick: () => void
  close: () => void
}

export function createWebhookEngine (store: Store, events: EventLog, options: DeliveryOptions): WebhookEngine {
  const endpoints = new Map<string, EndpointRecord>()
  const deliveries: Delivery[] = []
  const queues = new Map<string, Delivery[]>()
  const busy = new Set<string>()
  const idleWaiters: Array<() => void> = []
  const closer = new AbortController()
  let dropCount = 0
  let duplicateCount = 0
  let delay = { ms: 0, count: 0 }
  let paused = false
  let sequence = 0

  const pending = (eventId: string): number => deliveries.filter((item) => item.eventId === eventId && !item.extra && item.status !== 'delivered').length

  function refreshPending (eventId: string): void {
    const event = events.get(eventId) as Stripe.Event
    event.pending_webhooks = pending(eventId)
  }

  function settleIdle (): void {
    if (busy.size > 0 || [...queues.values()].some((queue) => queue.length > 0)) return
    for (const resolve of idleWaiters.splice(0)) resolve()
  }

  function enqueue (delivery: Delivery): void {
    delivery.status = 'pending'
    const queue = queues.get(delivery.endpointId) ?? []
    queues.set(delivery.endpointId, queue)
    queue.push(delivery)
    pump(delivery.endpointId).catch(() => undefined)
  }

  async function pump (endpointId: string): Promise<void> {
    if (busy.has(endpointId)) return
    busy.add(endpointId)
    const queue = queues.get(endpointId) as Delivery[]
    for (let delivery = queue.shift(); delivery !== undefined; delivery = queue.shift()) await send(delivery)
    busy.delete(endpointId)
    settleIdle()
  }

  async function send (delivery: Delivery): Promise<void> {
    const record = endpoints.get(delivery.endpointId)
    if (record === undefined || closer.signal.aborted) {
      // A deleted endpoint gets no more attempts (https://docs.stripe.com/webhooks#automatic-retries).
      delivery.status = 'failed'
      return
    }
    const event = events.get(delivery.eventId) as Stripe.Event
    const body = JSON.stringify(event, null, 2)
    const signature = signatureHeader(body, record.secrets, store.clock.unix())
    delivery.status = 'sending'
    delivery.body = body
    delivery.signature = signature
    const attempt: DeliveryAttempt = { at: store.clock.now() }
    delivery.attempts.push(attempt)
    store.counters.webhookAttempts++
    try {
      const answer = await fetch(delivery.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': signature },
        body,
        signal: AbortSignal.any([closer.signal, AbortSignal.timeout(options.timeoutMs)])
      })
      attempt.statusCode = answer.status
      await answer.arrayBuffer().catch(() => undefined)
    } catch (error) {
      attempt.error = (error as Error).message
    }
    const ok = attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300
    const retryIndex = delivery.attempts.length - 1
    if (ok) delivery.status = 'delivered'
    else if (!delivery.extra && retryIndex < options.retryDelaysMs.length && !closer.signal.aborted) {
      delivery.status = 'scheduled'
      delivery.dueAt = store.clock.now() + (options.retryDelaysMs[retryIndex] as number)
    } else delivery.status = 'failed'
    if (!delivery.extra) refreshPending(delivery.eventId)
  }

  function newDelivery (event: Stripe.Event, record: EndpointRecord, extra: boolean): Delivery {
    const delivery: Delivery = { id: `delivery_${++sequence}`, eventId: event.id, eventType: event.type, endpointId: record.endpoint.id, url: record.endpoint.url, status: 'pending', extra, attempts: [] }
    deliveries.push(delivery)
    return delivery
  }

  function route (delivery: Delivery): void {
    if (paused) delivery.status = 'held'
    else enqueue(delivery)
  }

  events.onEvent((event) => {
    const targets = [...endpoints.values()].filter((record) => record.endpoint.status === 'enabled' &&
      (record.endpoint.enabled_events.includes('*') || record.endpoint.enabled_events.includes(event.type)))
    const created = targets.map((record) => newDelivery(event, record, false))
    event.pending_webhooks = created.length
    for (const delivery of created) {
      if (dropCount > 0) {
        dropCount--
        delivery.status = 'dropped'
        continue
      }
      const duplicate = duplicateCount > 0
      if (duplicate) duplicateCount--
      if (delay.count > 0) {
        delay.count--
        delivery.status = 'scheduled'
        delivery.dueAt = store.clock.now() + delay.ms
      } else route(delivery)
      if (duplicate) route(newDelivery(event, endpoints.get(delivery.endpointId) as EndpointRecord, true))
    }
  })

  return {
    endpoints,
    addEndpoint (init) {
      const secret = init.secret ?? newWebhookSecret()
      const endpoint: Stripe.WebhookEndpoint = {
        id: newId('we'),
        object: 'webhook_endpoint',
        api_version: init.apiVersion ?? null,
        application: null,
        created: store.clock.unix(),
        description: init.description ?? null,
        enabled_events: [...(init.enabledEvents ?? ['*'])],
        livemode: false,
        metadata: init.metadata ?? {},
        status: 'enabled',
        url: init.url
      }
      const record = { endpoint, secrets: [secret] }
      endpoints.set(endpoint.id, record)
      return record
    },
    removeEndpoint: (id) => endpoints.delete(id),
    rollSecret (id) {
      const record = endpoints.get(id)
      if (record === undefined) throw new Error(`No webhook endpoint ${id}`)
      const secret = newWebhookSecret()
      record.secrets.unshift(secret)
      return secret
    },
    deliveries: (filter = {}) => deliveries.filter((item) => (filter.eventId === undefined || item.eventId === filter.eventId) &&
      (filter.endpointId === undefined || item.endpointId === filter.endpointId)),
    dropNext (count = 1) { dropCount += count },
    duplicateNext (count = 1) { duplicateCount += count },
    delayNext (ms, count = 1) { delay = { ms, count } },
    pause () { paused = true },
    resume ({ reverse = false } = {}) {
      paused = false
      const held = deliveries.filter((item) => item.status === 'held')
      for (const delivery of reverse ? held.reverse() : held) enqueue(delivery)
    },
    redeliver (eventId, endpointId) {
      const event = events.get(eventId)
      if (event === undefined) throw new Error(`No event ${eventId}`)
      const targets = [...endpoints.values()].filter((record) => endpointId === undefined || record.endpoint.id === endpointId)
      return targets.map((record) => {
        const delivery = newDelivery(event, record, true)
        route(delivery)
        return delivery
      })
    },
    waitForIdle () {
      const idle = new Promise<void>((resolve) => { idleWaiters.push(resolve) })
      settleIdle()
      return idle
    },
    tick () {
      const now = store.clock.now()
      for (const delivery of deliveries) {
        if (delivery.status === 'scheduled' && (delivery.dueAt as number) <= now) route(delivery)
      }
    },
    close () {
      closer.abort()
      for (const resolve of idleWaiters.splice(0)) resolve()
    }
  }
}
