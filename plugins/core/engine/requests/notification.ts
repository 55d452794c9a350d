/**
 * A provider's notification (a webhook), verified by its gateway: who sent it, its own id
 * (redeliveries carry the same one), what it is about and the event itself.
 */
export interface ProviderNotification {
  /** The provider's name as people know it ("PayPal", "Stripe"). */
  provider: string
  /** The provider's id of the event: the same on every delivery of it. */
  eventId: string
  eventType?: string
  /** The provider's ids of what the event is about (order, capture, refund…): never payer data. */
  resourceIds: Record<string, string>
  /** What the provider said moved, in its own format, when it says. */
  amount?: { value: string, currency: string }
  /** The verified event, as the provider sent it, for the gateway's Notify action. */
  event: unknown
}

/** A stored model class (Payment, a gateway's details record). */
type ModelClass = new (...args: any[]) => object

/**
 * One place a notification's payment may be stored: by id, or by fields (`details.id`);
 * `accept` rejects a model found there that is not the one (another gateway's payment).
 */
export type PaymentLookup = { model: ModelClass, accept?: (model: object) => boolean } & ({ id: string } | { criteria: Record<string, unknown> })

/**
 * Asks a gateway to verify a notification that reached its gateway-wide notify route and to
 * say where its payment is stored. The gateway's action reads the HTTP request
 * (GetHttpRequest), refuses a delivery it cannot verify by throwing a reply (a 400), and fills
 * `notification` and `lookups`; it never reads storages or runs other payments' requests. An
 * event that names no resource and no lookup concerns no payment (acknowledged); one that
 * names money no lookup finds is reported as money.unmatched.
 * The caller (Paywire.receiveNotification(), which the notify route runs) finds the payment
 * and runs its Notify as the payment's only writer, or reports money no payment owns.
 */
export class LocateNotification {
  /** The verified notification, set by the gateway's action. */
  notification: ProviderNotification | undefined = undefined
  /** Tried in order; the first model found (and accepted) is the payment. */
  lookups: PaymentLookup[] = []
  /** Whether the payment already took this notification (a redelivery): then nothing is claimed or run. */
  handled: ((model: object) => boolean) | undefined = undefined
}
