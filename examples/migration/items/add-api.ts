/* PAYWIREDEP006: a gateway assembled by hand, given to addGateway(name, gateway). */
import { Gateway, HttpClient, LegacyMessageFactory } from 'paywire/engine'
import { AcmeApi as AcmeApiV1, CaptureAction as CaptureActionV1 } from '../v1/index.ts'
import { AcmeApi as AcmeApiV2, CaptureAction as CaptureActionV2 } from '../v2/index.ts'

// #region before
export function handMadeGatewayBefore (httpClient: HttpClient): Gateway {
  const api = new AcmeApiV1({ client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>', sandbox: true }, httpClient, new LegacyMessageFactory())
  return new Gateway()
    .addAction(new CaptureActionV1())
    .addApi(api)
}
// #endregion before

// #region after
export function handMadeGatewayAfter (httpClient: HttpClient): Gateway {
  const api = new AcmeApiV2('<CLIENT_ID>', '<CLIENT_SECRET>', true, httpClient, 'hand-made')
  return new Gateway()
    .addAction(new CaptureActionV2(api))
}
// #endregion after
