/* Rule 6: after migrating, check that nothing deprecated is left (what `npm run doctor -- --strict` does). */
import { diagnosePaywire, type AnyGatewayFactory } from 'paywire/engine'
import { shopBuilder } from './shop.ts'

// #region check
export async function deprecationCodes (factory: AnyGatewayFactory): Promise<string[]> {
  const paywire = shopBuilder(factory).getPaywire()
  try {
    return diagnosePaywire(paywire).flatMap((gateway) => gateway.deprecations.map((deprecation) => deprecation.code))
  } finally {
    await paywire.close()
  }
}
// #endregion check
