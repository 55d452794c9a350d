import {
  HttpClient, Logger, PaymentStateReader, StatusTransitions, autowire, factory, get, serviceId,
  type AutowireDefinition, type Class, type ContainerConfiguration, type FactoryDefinition
} from '../../plugins/core/engine/index.ts'
import { DEFAULT_WEBHOOK_MAX_AGE_SECONDS, PaypalRestConfig } from './config.ts'
import { LocateWebhookAction, NotifyNullAction, PaypalWebhookLocator } from './locate-webhook-action.ts'
import { PaypalWebhookVerifier } from './webhook-verifier.ts'

/**
 * The options every PayPal gateway takes, for `satisfies` in the paywire plugin's `gateways`
 * (which takes any factory's options, so it cannot catch a misspelt key itself). client_id and
 * client_secret are required: empty, they fail boot.
 */
export type PaypalGatewayOptions = {
  /** The factory's name ('paypal_rest', 'paypal_checkout'), or the name it is registered under. */
  factory: string
  client_id: string | undefined
  client_secret: string | undefined
  /** A directory holding sdk_config.ini. */
  config_path?: string
  /** The sdk_config.ini options as a map ('service.EndPoint', mode, 'http.Retry'...); wins over the file. */
  config?: Record<string, unknown>
  webhook_id?: string | undefined
  webhook_verification?: 'online' | 'offline'
  /** PEM of the CAs offline verification trusts; default: Node's bundled roots (PayPal's certificates chain to DigiCert). */
  webhook_trust_anchors?: string | string[]
}

/** What one PayPal API brings to the wiring both share. */
export interface PaypalApiParts {
  /** The factory's options prefix ('paypal_rest'): its options are container values under it. */
  prefix: string
  /** The API class: constructor(config, httpClient, logger). */
  api: Class
  /** The views class: constructor(transitions, logger, config). */
  views: Class
  stateReader: () => PaymentStateReader
  /** How a verified webhook finds its payment. */
  locator: AutowireDefinition<any> | FactoryDefinition<PaypalWebhookLocator>
  /** The actions built from (api, views). */
  actions: Class[]
}

/**
 * The container entries of a PayPal gateway, whichever API: its options with their defaults, the
 * REST client's configuration, the API and its views, the webhook verifier and locator, and the
 * actions that need only the API and the views. A factory adds what is its own.
 */
export function paypalContainer (parts: PaypalApiParts): ContainerConfiguration {
  const option = (name: string): string => `${parts.prefix}.${name}`
  const configuration: ContainerConfiguration = {
    [option('client_id')]: '',
    [option('client_secret')]: '',
    [option('config_path')]: '',
    [option('config')]: {},
    [option('webhook_id')]: '',
    [option('webhook_verification')]: 'online',
    [option('webhook_max_age')]: DEFAULT_WEBHOOK_MAX_AGE_SECONDS,
    [option('webhook_trust_anchors')]: '',
    [serviceId(PaypalRestConfig)]: factory((container) => new PaypalRestConfig({
      gatewayName: container.get('paywire.gateway_name'),
      clientId: container.get(option('client_id')),
      clientSecret: container.get(option('client_secret')),
      configPath: container.get(option('config_path')),
      config: container.get(option('config')),
      webhookId: container.get(option('webhook_id')),
      webhookVerification: container.get(option('webhook_verification')),
      webhookMaxAge: container.get(option('webhook_max_age')),
      webhookTrustAnchors: container.get(option('webhook_trust_anchors'))
    })),
    // Commits read statuses through it to stage payment events.
    [serviceId(PaymentStateReader)]: factory(parts.stateReader),
    [serviceId(parts.api)]: autowire(parts.api).constructor(get(PaypalRestConfig), get(HttpClient), get(Logger)),
    [serviceId(PaypalWebhookVerifier)]: autowire(PaypalWebhookVerifier).constructor(get(PaypalRestConfig), get(parts.api), get(HttpClient)),
    // Every path that takes PayPal's view of a payment goes through it, and so through the gateway's transition table.
    [serviceId(parts.views)]: autowire(parts.views).constructor(get(StatusTransitions), get(Logger), get(PaypalRestConfig)),
    // Webhooks: verified and located here; the notify route runs the payment's Notify.
    [serviceId(PaypalWebhookLocator)]: parts.locator,
    [serviceId(LocateWebhookAction)]: autowire(LocateWebhookAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig)),
    [serviceId(NotifyNullAction)]: autowire(NotifyNullAction).constructor(get(PaypalWebhookVerifier), get(PaypalWebhookLocator), get(PaypalRestConfig))
  }
  for (const action of parts.actions) configuration[serviceId(action)] = autowire(action).constructor(get(parts.api), get(parts.views))
  return configuration
}
