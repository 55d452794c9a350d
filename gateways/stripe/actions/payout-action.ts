import { Payout, type Action } from '../../../plugins/core/engine/index.ts'
import type { StripeConfig } from '../config.ts'
import { PAYWIRE_ERR_STRIPE_PAYOUT_NOT_SUPPORTED } from '../errors.ts'

/** Payout, refused before anything is converted or sent: paying a third party through Stripe needs Connect. */
export class PayoutAction implements Action {
  /** Consulted before the core's PayoutPayoutAction, which would convert the payout first. */
  readonly prepend = true
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['config']
  readonly config: StripeConfig

  constructor (config: StripeConfig) {
    this.config = config
  }

  supports (request: unknown): boolean {
    return request instanceof Payout
  }

  execute (): void {
    throw new PAYWIRE_ERR_STRIPE_PAYOUT_NOT_SUPPORTED(this.config.gatewayName)
  }
}
