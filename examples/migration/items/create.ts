/* PAYWIREDEP004: building a gateway. */
import { PaywireBuilder, type Gateway } from 'paywire/engine'
import { AcmeGatewayFactory as AcmeV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../v2/index.ts'

// #region before
export function liveGatewayBefore (): Gateway {
  return new AcmeV1().create({ client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>', sandbox: false })
}
// #endregion before

// #region after
export function liveGatewayAfter (): Gateway {
  return new PaywireBuilder()
    .addGatewayFactory('acme', new AcmeV2())
    .addGateway('live', { factory: 'acme', client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>', sandbox: false })
    .getPaywire()
    .getGateway('live')
}
// #endregion after
