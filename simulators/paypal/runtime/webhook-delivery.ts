import type { FastifyInstance } from 'fastify'
import { newCertificateId, newWebhookEventId, newWebhookId } from './ids.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { createSigningIdentity, signWebhookBody } from './signatures.ts'
import type { SigningIdentity } from './signatures.ts'
import { assertClientKnown, paypalTime } from './store.ts'
import type {
  WebhookControl, WebhookDelivery, WebhookEvent, WebhookSubscription
} from './types.ts'

export interface EmittedEvent {
  event: WebhookEvent
  clientId: string
  base: string
}

export interface NewEvent {
  clientId: string
  eventType: string
  resourceType: WebhookEvent['resource_type']
  resourceVersion?: WebhookEvent['resource_version']
  summary: string
  resource: WebhookEvent['resource']
}

interface HeldDelivery {
  delivery: WebhookDelivery
  release: () => void
}

/** What tests control (WebhookControl), plus what the simulator's routes need. */
export interface WebhookEngine extends Pick<WebhookControl,
  'subscribe' | 'subscriptions' | 'events' | 'deliveries' | 'redeliver' | 'pause' | 'resume' | 'waitForIdle' | 'sign'> {
  readonly certificateId: string
  identity: () => Promise<SigningIdentity>
  unsubscribe: (webhookId: string) => void
  emit: (newEvent: NewEvent, base: string) => WebhookEvent
  emitted: (eventId: string) => EmittedEvent | undefined
}

// PayPal's own deliveries carry a User-Agent like this one; receivers sometimes log or filter on it.
const DELIVERY_USER_AGENT = 'PayPal/AUHD-214.0-simulator'

export function createWebhookEngine (app: FastifyInstance, runtime: SimulatorRuntime): WebhookEngine {
  const { store } = runtime
  const { delivery: deliveryConfig } = store.config
  const certificateId = newCertificateId()
  const subscriptions = new Map<string, WebhookSubscription>()
  const events = new Map<string, EmittedEvent>()
  const deliveries: WebhookDelivery[] = []
  const active = new Set<Promise<unknown>>()
  let held: HeldDelivery[] = []
  let paused = false
  let identityPromise: Promise<SigningIdentity> | undefined

  const identity = async (): Promise<SigningIdentity> => {
    identityPromise ??= createSigningIdentity(certificateId, store.now())
    return await identityPromise
  }
  // Made at startup so the first event waits for nothing: the process's RSA keys the first time, this
  // simulator's certificates every time.
  app.addHook('onReady', async function createWebhookSigningKey () {
    await identity()
  })

  function track<T> (work: Promise<T>): Promise<T> {
    active.add(work)
    const forget = (): void => { active.delete(work) }
    work.then(forget, forget)
    return work
  }

  async function attempt (delivery: WebhookDelivery): Promise<boolean> {
    store.counters.webhookDeliveryAttempts++
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        // PayPal's deliveries also carry PAYPAL-AUTH-VERSION: v2 beside the signature headers (not signed;
        // https://developer.paypal.com/api/rest/webhooks/rest/ lists the headers a listener receives).
        headers: { ...delivery.headers, 'paypal-auth-version': 'v2', 'content-type': 'application/json', 'user-agent': DELIVERY_USER_AGENT },
        body: delivery.body,
        signal: AbortSignal.any([AbortSignal.timeout(deliveryConfig.timeoutMs), runtime.closing])
      })
      await response.arrayBuffer()
      delivery.attempts.push({ statusCode: response.status })
      return response.ok
    } catch (error) {
      delivery.attempts.push({ error: (error as Error).message })
      return false
    }
  }

  // Non-2xx answers and network errors are retried a bounded number of times (PayPal: days).
  async function send (delivery: WebhookDelivery): Promise<WebhookDelivery> {
    delivery.status = 'pending'
    for (let number = 1; ; number++) {
      if (await attempt(delivery)) {
        delivery.status = 'delivered'
        return delivery
      }
      if (number >= deliveryConfig.maxAttempts || runtime.closing.aborted) break
      await runtime.pause(deliveryConfig.retryDelayMs)
    }
    delivery.status = 'failed'
    return delivery
  }

  async function prepare (emitted: EmittedEvent, subscription: WebhookSubscription): Promise<WebhookDelivery> {
    const body = JSON.stringify(emitted.event)
    const headers = signWebhookBody(await identity(), emitted.base, store.now(), body, { webhookId: subscription.id })
    const delivery: WebhookDelivery = {
      eventId: emitted.event.id,
      eventType: emitted.event.event_type,
      webhookId: subscription.id,
      url: subscription.url,
      body,
      headers,
      status: 'pending',
      attempts: []
    }
    deliveries.push(delivery)
    return delivery
  }

  async function dispatch (emitted: EmittedEvent, subscription: WebhookSubscription): Promise<WebhookDelivery> {
    const delivery = await track(prepare(emitted, subscription))
    if (!paused || runtime.closing.aborted) return await track(send(delivery))
    delivery.status = 'held'
    await new Promise<void>((resolve) => held.push({ delivery, release: resolve }))
    return delivery
  }

  // Held deliveries will never be sent once the simulator closes; whoever awaits them must not hang.
  runtime.closing.addEventListener('abort', () => {
    for (const { delivery, release } of held) {
      delivery.status = 'failed'
      release()
    }
    held = []
  }, { once: true })
  // After the runtime's preClose hook aborted them: close() resolves with every delivery settled.
  app.addHook('preClose', async function settleWebhookDeliveries () {
    await waitForIdle()
  })

  async function waitForIdle (): Promise<void> {
    while (active.size > 0) await Promise.allSettled([...active])
  }

  function subscribersOf (emitted: EmittedEvent): WebhookSubscription[] {
    return [...subscriptions.values()].filter((subscription) =>
      subscription.clientId === emitted.clientId &&
      (subscription.eventTypes.includes('*') || subscription.eventTypes.includes(emitted.event.event_type)))
  }

  return {
    certificateId,
    identity,
    subscribe (registration) {
      const clientId = registration.clientId ?? store.defaultClientId
      assertClientKnown(store, clientId)
      const subscription: WebhookSubscription = {
        id: newWebhookId(),
        url: registration.url,
        eventTypes: registration.eventTypes ?? ['*'],
        clientId
      }
      subscriptions.set(subscription.id, subscription)
      return subscription
    },
    unsubscribe (webhookId) {
      subscriptions.delete(webhookId)
    },
    subscriptions: () => [...subscriptions.values()],
    emit (newEvent, base) {
      const id = newWebhookEventId()
      const self = `${base}/v1/notifications/webhooks-events/${id}`
      const event: WebhookEvent = {
        id,
        event_version: '1.0',
        create_time: paypalTime(store.now()),
        resource_type: newEvent.resourceType,
        ...(newEvent.resourceVersion === undefined ? {} : { resource_version: newEvent.resourceVersion }),
        event_type: newEvent.eventType,
        summary: newEvent.summary,
        resource: newEvent.resource,
        links: [
          { href: self, rel: 'self', method: 'GET' },
          { href: `${self}/resend`, rel: 'resend', method: 'POST' }
        ]
      }
      const emitted: EmittedEvent = { event, clientId: newEvent.clientId, base }
      events.set(id, emitted)
      store.counters.webhookEvents++
      // Not awaited: a delivery records its own failures and never rejects.
      for (const subscription of subscribersOf(emitted)) dispatch(emitted, subscription)
      return event
    },
    emitted: (eventId) => events.get(eventId),
    events: () => [...events.values()].map((emitted) => emitted.event),
    deliveries (filter = {}) {
      return deliveries.filter((delivery) =>
        (filter.eventId === undefined || delivery.eventId === filter.eventId) &&
        (filter.webhookId === undefined || delivery.webhookId === filter.webhookId))
    },
    async redeliver (eventId, options = {}) {
      const emitted = events.get(eventId)
      if (emitted === undefined) throw new Error(`PayPal simulator: no webhook event ${eventId}`)
      const targets = options.webhookId === undefined
        ? subscribersOf(emitted)
        : [...subscriptions.values()].filter((subscription) => subscription.id === options.webhookId)
      return await Promise.all(targets.map((subscription) => dispatch(emitted, subscription)))
    },
    pause () {
      paused = true
    },
    resume (options = {}) {
      paused = false
      const batch = held
      held = []
      if (options.reverse === true) batch.reverse()
      // One after the other, so the receiver sees exactly the released order.
      track((async () => {
        for (const { delivery, release } of batch) {
          await send(delivery)
          release()
        }
      })())
    },
    waitForIdle,
    async sign (body, options) {
      return signWebhookBody(await identity(), runtime.baseUrl(), store.now(), body, options)
    }
  }
}
