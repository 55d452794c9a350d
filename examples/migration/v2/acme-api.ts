import { errorCodes, type HttpClient } from 'paywire/engine'
import { acmeHeaders, acmeUrl, readAcmeResponse, type AcmeCharge } from '../shared/acme-protocol.ts'

/** The Acme API client, 2.0 style: an autowire() definition gives it its options and the HttpClient. */
export class AcmeApi {
  readonly clientId: string
  readonly sandbox: boolean
  readonly #clientSecret: string
  readonly #httpClient: HttpClient

  // #region constructor
  constructor (clientId: string, clientSecret: string, sandbox: boolean, httpClient: HttpClient, gatewayName: string) {
    // The check the 1.x paywire.api closure made (paywire.required_options), now where the values arrive.
    if (clientId === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(gatewayName, 'client_id')
    if (clientSecret === '') throw new errorCodes.PAYWIRE_ERR_REQUIRED_OPTION(gatewayName, 'client_secret')
    this.clientId = clientId
    this.#clientSecret = clientSecret
    this.sandbox = sandbox
    this.#httpClient = httpClient
  }
  // #endregion constructor

  async createCharge (amount: number, currency: string): Promise<AcmeCharge> {
    return await this.#post('/v1/charges', { amount, currency }) as unknown as AcmeCharge
  }

  async refundCharge (chargeId: string, amount: number): Promise<void> {
    await this.#post(`/v1/charges/${encodeURIComponent(chargeId)}/refunds`, { amount })
  }

  // #region send
  async #post (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await this.#httpClient.send({
      method: 'POST',
      url: acmeUrl(this.sandbox, path),
      headers: acmeHeaders(this.clientId, this.#clientSecret),
      body: JSON.stringify(body)
    })
    return readAcmeResponse(response)
  }
  // #endregion send
}
