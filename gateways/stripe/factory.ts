import {
  CoreGatewayFactory, HttpClient, Logger, PaymentStateReader, StatusTransitions, autowire, factory, get, serviceId,
  type ActionEntry, type ContainerConfiguration, type ServiceContainer
} from '../../plugins/core/engine/index.ts'
import { AuthorizeAction, CaptureAction } from './actions/capture-action.ts'
import { CancelAction } from './actions/cancel-action.ts'
import { ConvertPaymentAction } from './actions/convert-payment-action.ts'
import { PayoutAction } from './actions/payout-action.ts'
import { RefundAction } from './actions/refund-action.ts'
import { NotifyAction, SyncAction } from './actions/sync-notify-actions.ts'
import { StripeApi } from './api.ts'
import { STRIPE_OPTION_NAMES, StripeConfig, type StripeOptionName } from './config.ts'
import { StripeReads } from './reads.ts'
import { StripeStateReader } from './state-reader.ts'
import { StripeViews } from './views.ts'
import { LocateWebhookAction } from './webhook.ts'

export const STRIPE_FACTORY_NAME = 'stripe'
const PREFIX = STRIPE_FACTORY_NAME

/** The options of a stripe gateway, for `satisfies StripeGatewayOptions`. */
export type StripeGatewayOptions = {
  /** 'stripe', or the name the factory is registered under. */
  factory: string
  /** `sk_test_…` or `sk_live_…` (or a restricted key `rk_…`): the mode follows from it. */
  secret_key: string | undefined
  /** The webhook endpoint's signing secret (`whsec_…`), or several while one is rolled. */
  webhook_secrets?: string | string[] | undefined
  /** Seconds a signed delivery may be old (default 300, Stripe's). */
  webhook_tolerance?: number
  /** `pk_test_…` / `pk_live_…`, for pages that need it; must be the secret key's mode. */
  publishable_key?: string
  /** Default: the API version of the installed `stripe` package, which its types describe. */
  api_version?: string
  /** `test` or `live`: only checked against the key's. */
  mode?: 'test' | 'live'
  /** For the simulator only (test keys): where the API is instead of api.stripe.com. */
  host?: string
  port?: number
  protocol?: 'http' | 'https'
  /** The SDK's retries of a failed call, with the same idempotency key (default 2). */
  max_network_retries?: number
  /** Per call, in milliseconds (default 80000, the SDK's). */
  timeout_ms?: number
}

/** The gateway's options as given, and the names under its prefix that are none of them (misspelt). */
function optionsOf (container: ServiceContainer): { values: Partial<Record<StripeOptionName, unknown>>, unknown: string[] } {
  const values: Partial<Record<StripeOptionName, unknown>> = {}
  for (const name of STRIPE_OPTION_NAMES) values[name] = container.get(`${PREFIX}.${name}`)
  const unknown = container.keys()
    .filter((key): key is string => typeof key === 'string' && key.startsWith(`${PREFIX}.`))
    .map((key) => key.slice(PREFIX.length + 1))
    .filter((name) => !(STRIPE_OPTION_NAMES as readonly string[]).includes(name))
  return { values, unknown }
}

/**
 * Stripe (Checkout Sessions, PaymentIntents, Refunds, Disputes, signed webhooks) as a 2.0
 * gateway factory, on the official `stripe` SDK whose HTTP goes through Paywire's HttpClient.
 */
export class StripeGatewayFactory extends CoreGatewayFactory {
  readonly optionsPrefix = PREFIX

  override configureContainer (): ContainerConfiguration {
    const defaults = Object.fromEntries(STRIPE_OPTION_NAMES.map((name) => [`${PREFIX}.${name}`, '']))
    return {
      ...super.configureContainer(),
      ...defaults,
      [serviceId(StripeConfig)]: factory((container) => {
        const { values, unknown } = optionsOf(container)
        return new StripeConfig(container.get('paywire.gateway_name'), values, unknown)
      }),
      [serviceId(PaymentStateReader)]: factory(() => new StripeStateReader()),
      [serviceId(StripeApi)]: autowire(StripeApi).constructor(get(StripeConfig), get(HttpClient), get(Logger)),
      [serviceId(StripeViews)]: autowire(StripeViews).constructor(get(StatusTransitions), get(Logger), get(StripeConfig)),
      [serviceId(StripeReads)]: autowire(StripeReads).constructor(get(StripeApi), get(StripeViews)),
      [serviceId(CaptureAction)]: autowire(CaptureAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(AuthorizeAction)]: autowire(AuthorizeAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(CancelAction)]: autowire(CancelAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(RefundAction)]: autowire(RefundAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(SyncAction)]: autowire(SyncAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(NotifyAction)]: autowire(NotifyAction).constructor(get(StripeApi), get(StripeViews), get(StripeReads)),
      [serviceId(PayoutAction)]: autowire(PayoutAction).constructor(get(StripeConfig)),
      // Webhooks: verified and located here; the notify route runs the payment's Notify.
      [serviceId(LocateWebhookAction)]: autowire(LocateWebhookAction).constructor(get(StripeApi))
    }
  }

  override getActions (): ActionEntry[] {
    return [
      ...super.getActions(),
      PayoutAction,
      ConvertPaymentAction,
      CaptureAction,
      AuthorizeAction,
      CancelAction,
      RefundAction,
      SyncAction,
      LocateWebhookAction,
      NotifyAction
    ]
  }
}
