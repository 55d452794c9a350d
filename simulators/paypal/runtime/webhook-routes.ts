import type { FastifyInstance } from 'fastify'
import { apiError, validationError } from './errors.ts'
import type { PaypalErrorDetail } from './errors.ts'
import { rawTopLevelProperty } from './raw-json.ts'
import type { SimulatorRuntime } from './runtime.ts'
import { verifyWebhookSignature } from './signatures.ts'
import type { WebhookSubscription } from './types.ts'
import { INVALID_ISSUE, isHttpUrl, isJsonObject, REQUIRED_ISSUE, requestObject } from './validation.ts'
import type { EmittedEvent, WebhookEngine } from './webhook-delivery.ts'

interface IdParams { id: string }

// Field limits of verify_webhook_signature in the webhooks v1 spec (paypal-wire §4.4).
const VERIFY_FIELDS = {
  auth_algo: { maxLength: 100, pattern: /^[a-zA-Z0-9]+$/ },
  cert_url: { maxLength: 500, pattern: /^\S+$/ },
  transmission_id: { maxLength: 50, pattern: /^\S+$/ },
  transmission_sig: { maxLength: 500, pattern: /^\S+$/ },
  transmission_time: { maxLength: 100, pattern: /^\S+$/ },
  webhook_id: { maxLength: 50, pattern: /^[a-zA-Z0-9]+$/ }
} as const

type VerifyField = keyof typeof VERIFY_FIELDS

function webhookView (subscription: WebhookSubscription, base: string): Record<string, unknown> {
  const self = `${base}/v1/notifications/webhooks/${subscription.id}`
  return {
    id: subscription.id,
    url: subscription.url,
    event_types: subscription.eventTypes.map((name) => ({ name })),
    links: [
      { href: self, rel: 'self', method: 'GET' },
      { href: self, rel: 'update', method: 'PATCH' },
      { href: self, rel: 'delete', method: 'DELETE' }
    ]
  }
}

function parseSubscription (body: unknown): { url: string, eventTypes: string[] } {
  const { url, event_types: eventTypes } = requestObject(body)
  const details: PaypalErrorDetail[] = []
  if (!isHttpUrl(url)) details.push({ field: 'url', issue: url === undefined ? REQUIRED_ISSUE : INVALID_ISSUE })
  const names = Array.isArray(eventTypes)
    ? eventTypes.map((eventType: unknown) => isJsonObject(eventType) ? eventType.name : undefined)
    : []
  if (names.length === 0 || !names.every((name) => typeof name === 'string' && name !== '')) {
    details.push({ field: 'event_types', issue: eventTypes === undefined ? REQUIRED_ISSUE : INVALID_ISSUE })
  }
  if (details.length > 0) throw validationError(details)
  return { url: url as string, eventTypes: names as string[] }
}

function parseVerification (rawBody: string | undefined, body: unknown): Record<VerifyField, string> & { eventBodies: string[] } {
  const request = requestObject(body)
  const details: PaypalErrorDetail[] = []
  const fields = {} as Record<VerifyField, string>
  for (const [field, rule] of Object.entries(VERIFY_FIELDS) as Array<[VerifyField, typeof VERIFY_FIELDS[VerifyField]]>) {
    const value = request[field]
    if (value === undefined || value === '') details.push({ field, issue: REQUIRED_ISSUE })
    else if (typeof value !== 'string' || value.length > rule.maxLength || !rule.pattern.test(value)) details.push({ field, issue: INVALID_ISSUE })
    else fields[field] = value
  }
  const event = request.webhook_event
  if (!isJsonObject(event)) details.push({ field: 'webhook_event', issue: event === undefined ? REQUIRED_ISSUE : INVALID_ISSUE })
  if (details.length > 0) throw validationError(details)
  // The event as the merchant received it (spliced in verbatim, as the PHP SDK does), or re-serialised.
  const eventBodies = new Set([rawTopLevelProperty(rawBody as string, 'webhook_event') as string, JSON.stringify(event)])
  return { ...fields, eventBodies: [...eventBodies] }
}

/** Webhook management, events, and online signature verification (all behind the Bearer check). */
export function registerWebhookRoutes (app: FastifyInstance, runtime: SimulatorRuntime, webhooks: WebhookEngine): void {
  const { store } = runtime

  function ownedSubscription (clientId: string, webhookId: string): WebhookSubscription {
    const subscription = webhooks.subscriptions().find((candidate) => candidate.id === webhookId && candidate.clientId === clientId)
    if (subscription === undefined) throw apiError('INVALID_RESOURCE_ID', [])
    return subscription
  }

  app.post('/v1/notifications/webhooks', { config: { paypalIdempotent: true } }, async function createWebhook (request, reply) {
    const { url, eventTypes } = parseSubscription(request.body)
    const { clientId } = runtime.context(request)
    if (webhooks.subscriptions().some((subscription) => subscription.clientId === clientId && subscription.url === url)) {
      throw apiError('WEBHOOK_URL_ALREADY_EXISTS')
    }
    store.counters.webhooksCreated++
    const subscription = webhooks.subscribe({ url, eventTypes, clientId })
    return reply.code(201).send(webhookView(subscription, runtime.baseUrl(request)))
  })

  app.get('/v1/notifications/webhooks', async function listWebhooks (request) {
    const { clientId } = runtime.context(request)
    const base = runtime.baseUrl(request)
    return {
      webhooks: webhooks.subscriptions()
        .filter((subscription) => subscription.clientId === clientId)
        .map((subscription) => webhookView(subscription, base))
    }
  })

  app.get<{ Params: IdParams }>('/v1/notifications/webhooks/:id', async function showWebhook (request) {
    return webhookView(ownedSubscription(runtime.context(request).clientId, request.params.id), runtime.baseUrl(request))
  })

  app.delete<{ Params: IdParams }>('/v1/notifications/webhooks/:id', async function deleteWebhook (request, reply) {
    webhooks.unsubscribe(ownedSubscription(runtime.context(request).clientId, request.params.id).id)
    return reply.code(204).send()
  })

  function ownedEvent (clientId: string, eventId: string): EmittedEvent {
    const emitted = webhooks.emitted(eventId)
    if (emitted === undefined || emitted.clientId !== clientId) throw apiError('INVALID_RESOURCE_ID', [])
    return emitted
  }

  app.get<{ Params: IdParams }>('/v1/notifications/webhooks-events/:id', async function showWebhookEvent (request) {
    return ownedEvent(runtime.context(request).clientId, request.params.id).event
  })

  app.post<{ Params: IdParams }>('/v1/notifications/webhooks-events/:id/resend', async function resendWebhookEvent (request, reply) {
    const { event } = ownedEvent(runtime.context(request).clientId, request.params.id)
    const { webhook_ids: webhookIds } = requestObject(request.body)
    const targets = Array.isArray(webhookIds) ? webhookIds.filter((id): id is string => typeof id === 'string') : [undefined]
    for (const webhookId of targets) webhooks.redeliver(event.id, { webhookId })
    return reply.code(202).send(event)
  })

  app.post('/v1/notifications/verify-webhook-signature', async function verifyWebhookSignatureRoute (request) {
    const input = parseVerification(runtime.context(request).rawBody, request.body)
    const verified = verifyWebhookSignature(await webhooks.identity(), {
      authAlgo: input.auth_algo,
      certUrl: input.cert_url,
      transmissionId: input.transmission_id,
      transmissionSig: input.transmission_sig,
      transmissionTime: input.transmission_time,
      webhookId: input.webhook_id,
      eventBodies: input.eventBodies
    })
    return { verification_status: verified ? 'SUCCESS' : 'FAILURE' }
  })
}

/** The certificate is public, like PayPal's: verifiers download it without a token. */
export function registerCertificateRoute (app: FastifyInstance, webhooks: WebhookEngine): void {
  app.get<{ Params: { certificateId: string } }>('/v1/notifications/certs/:certificateId', async function downloadCertificate (request, reply) {
    if (request.params.certificateId !== webhooks.certificateId) throw apiError('INVALID_RESOURCE_ID', [])
    const { certificatePem } = await webhooks.identity()
    return reply.type('application/x-pem-file').send(certificatePem)
  })
}
