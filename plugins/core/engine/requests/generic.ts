import { ArrayObject, type Details } from '../model/array-object.ts'
import { Identity } from '../model/identity.ts'
import { Token } from '../model/token.ts'
import type { ProviderNotification } from './notification.ts'

export function isPlainRecord (value: unknown): value is Details {
  if (value === null || typeof value !== 'object') return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Base of every request that works on a model. The model changes while a request travels
 * through a gateway (Token → Identity → Payment → details bag); `firstModel` keeps the
 * first real model (never a Token or an Identity), which is what the done page reads.
 */
export class Generic {
  #model: unknown
  token: Token | null = null
  firstModel: unknown = undefined

  constructor (model: unknown) {
    this.model = model
    if (model instanceof Token) this.token = model
  }

  get model (): unknown {
    return this.#model
  }

  /** Plain records are wrapped in an ArrayObject that writes through to them. */
  set model (model: unknown) {
    const value = isPlainRecord(model) ? new ArrayObject(model) : model
    this.#model = value
    if (this.firstModel === undefined && value !== null && value !== undefined &&
        !(value instanceof Token) && !(value instanceof Identity)) {
      this.firstModel = value
    }
  }
}

export interface CaptureOptions {
  /**
   * Integer minor units to capture of an authorized payment (a partial capture: the rest is
   * released); omitted captures all of it. Gateways that cannot capture part refuse it.
   */
  amount?: number
}

export class Capture extends Generic {
  amount: number | undefined

  constructor (model: unknown, options: CaptureOptions = {}) {
    super(model)
    this.amount = options.amount
  }
}
export class Authorize extends Generic {}
export class Cancel extends Generic {}
/**
 * A provider says something happened to the payment. `notification` is set when the
 * gateway-wide notify route runs it: the provider's verified event (LocateNotification).
 */
export class Notify extends Generic {
  readonly notification: ProviderNotification | undefined

  constructor (model: unknown, notification?: ProviderNotification) {
    super(model)
    this.notification = notification
  }
}
export class Sync extends Generic {}
export class Payout extends Generic {}

export interface RefundOptions {
  /** Integer minor units; omitted means a full refund. */
  amount?: number
}

export class Refund extends Generic {
  amount: number | undefined

  constructor (model: unknown, options: RefundOptions = {}) {
    super(model)
    this.amount = options.amount
  }
}
