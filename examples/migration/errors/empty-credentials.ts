/* PAYWIRE_ERR_REQUIRED_OPTION: a 1.x factory's API built without its credentials. */
import type { Paywire } from 'paywire/engine'
import { shopBuilder } from '../shop.ts'
import { AcmeGatewayFactory } from '../v1/index.ts'

// #region broken
export function shopWithoutSecret (): Paywire {
  return shopBuilder(new AcmeGatewayFactory(), { options: { client_id: '<CLIENT_ID>', client_secret: '' } }).getPaywire()
}
// #endregion broken

// #region fixed
export function shopFromEnvironment (env: NodeJS.ProcessEnv): Paywire {
  return shopBuilder(new AcmeGatewayFactory(), {
    options: { client_id: env.ACME_CLIENT_ID, client_secret: env.ACME_CLIENT_SECRET }
  }).getPaywire()
}
// #endregion fixed
