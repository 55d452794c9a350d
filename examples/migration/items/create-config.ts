/* PAYWIREDEP003: reading a factory's defaults. */
import { AcmeGatewayFactory as AcmeV1 } from '../v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../v2/index.ts'

// #region before
export function sandboxByDefaultBefore (): boolean {
  const config = new AcmeV1().createConfig()
  return config.sandbox === true
}
// #endregion before

// #region after
export function sandboxByDefaultAfter (): boolean {
  const config = new AcmeV2().configureContainer()
  return config['acme.sandbox'] === true
}
// #endregion after
