import { deprecate, PAYWIREDEP012 } from '../../plugins/core/engine/deprecations.ts'
import { GatewayAwareAction, GetHttpRequest, LocateNotification, type PaymentLookup } from '../../plugins/core/engine/index.ts'
import type { PaypalRestConfig } from './config.ts'
import { parseWebhookEvent, paypalNotification, refuseWebhook, seenWebhookEvent, type PaypalWebhookEvent } from './webhook-event.ts'
import type { PaypalWebhookVerifier } from './webhook-verifier.ts'

/** Where an event's payment is, as one PayPal API tells it. */
export interface WebhookLocation {
  /** The provider's ids the event names (what money.unmatched reports; never payer data). */
  resourceIds: Record<string, string>
  /** Where the payment may be stored, in order; none: the event is about no payment. */
  lookups: PaymentLookup[]
  /** What the event says moved, in PayPal's format. */
  amount?: { value: unknown, currency: unknown }
}

/**
 * What differs between the PayPal APIs' webhooks (Payments v1, Orders v2): how an event names
 * its payment, and where Paywire keeps PayPal's record of a stored model. Each gateway
 * registers its own under this service id.
 */
export abstract class PaypalWebhookLocator {
  /** May ask PayPal (a parent resource the event only links to); a failed call is thrown, so PayPal delivers again. */
  abstract locate (event: PaypalWebhookEvent): WebhookLocation | Promise<WebhookLocation>
  /** PayPal's record (with Paywire's bookkeeping) in a stored model of this gateway; undefined: not one. */
  abstract recordOf (model: object): Record<string, any> | undefined
}

/**
 * The gateway-wide notify route's first step for both PayPal gateways: the delivery is read
 * as received, refused with a 400 unless it is a PayPal event whose signature verifies
 * (online or offline), and described for the route: its ids, where its payment is stored,
 * and whether that payment already took it. The route then finds the payment and runs its
 * Notify under the payment's claim, or reports money no payment owns (money.unmatched).
 */
export class LocateWebhookAction extends GatewayAwareAction {
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['verifier', 'locator', 'config']
  readonly verifier: PaypalWebhookVerifier
  readonly locator: PaypalWebhookLocator
  readonly config: PaypalRestConfig

  constructor (verifier: PaypalWebhookVerifier, locator: PaypalWebhookLocator, config: PaypalRestConfig) {
    super()
    this.verifier = verifier
    this.locator = locator
    this.config = config
  }

  supports (request: unknown): boolean {
    return request instanceof LocateNotification
  }

  async execute (request: LocateNotification): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const event = parseWebhookEvent(http.content)
    if (event === undefined) throw refuseWebhook('Not a PayPal webhook event.')
    if (!await this.verifier.verify(http)) throw refuseWebhook('Webhook signature verification failed.')
    const { resourceIds, lookups, amount } = await this.locator.locate(event)
    request.notification = paypalNotification(event, resourceIds, amount)
    request.lookups = lookups
    request.handled = (model) => {
      const record = this.locator.recordOf(model)
      return record !== undefined && seenWebhookEvent(record, event)
    }
  }
}

/**
 * @deprecated (PAYWIREDEP012): list LocateWebhookAction. The notify route runs the payment's
 * Notify itself; this old name verifies and locates like LocateWebhookAction.
 */
export class NotifyNullAction extends LocateWebhookAction {
  constructor (verifier: PaypalWebhookVerifier, locator: PaypalWebhookLocator, config: PaypalRestConfig) {
    super(verifier, locator, config)
    deprecate(PAYWIREDEP012)
  }
}
