/* PAYWIREDEP005: adding actions and extensions, one of them first. */
import {
  Refund, type Action, type ActionEntry, type Context, type Extension, type ExtensionEntry, type LegacyConfig
} from 'paywire/engine'
import { AcmeGatewayFactory as AcmeV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../v2/index.ts'

/** A shop policy: no refunds through this gateway. It must be consulted before Acme's own refund action. */
export class DenyRefundsAction implements Action {
  supports (request: unknown): boolean {
    return request instanceof Refund
  }

  execute (): void {
    throw new Error('Refunds are disabled for this gateway.')
  }
}

/** Counts the requests a gateway executes. */
export class CountingExtension implements Extension {
  count = 0

  onExecute (_context: Context): void {
    this.count++
  }
}

// #region before
export class NoRefundsAcmeGatewayFactoryBefore extends AcmeV1 {
  protected override populateConfig (config: LegacyConfig): void {
    super.populateConfig(config)
    config.defaults({
      'paywire.action.deny_refunds': new DenyRefundsAction(),
      'paywire.extension.counting': new CountingExtension()
    })
    // The core config already holds the list (empty): add to it, defaults() would keep it as is.
    config.set('paywire.prepend_actions', [...config.get<string[]>('paywire.prepend_actions'), 'paywire.action.deny_refunds'])
  }
}
// #endregion before

// #region after
export class FirstDenyRefundsAction extends DenyRefundsAction {
  readonly prepend = true
}

export class NoRefundsAcmeGatewayFactoryAfter extends AcmeV2 {
  override getActions (): ActionEntry[] {
    return [...super.getActions(), FirstDenyRefundsAction]
  }

  override getExtensions (): ExtensionEntry[] {
    return [...super.getExtensions(), CountingExtension]
  }
}
// #endregion after
