import type { HttpClient, LegacyMessageFactory } from 'paywire/engine'
import { acmeHeaders, acmeUrl, readAcmeResponse, type AcmeCharge } from '../shared/acme-protocol.ts'

export interface AcmeApiOptions {
  client_id: string
  client_secret: string
  sandbox: boolean
}

/** The Acme API client, 1.x style: built by the paywire.api closure from the whole config. */
export class AcmeApi {
  readonly clientId: string
  readonly sandbox: boolean
  readonly #clientSecret: string
  readonly #client: HttpClient
  readonly #messageFactory: LegacyMessageFactory

  // #region constructor
  constructor (options: AcmeApiOptions, client: HttpClient, messageFactory: LegacyMessageFactory) {
    this.clientId = options.client_id
    this.#clientSecret = options.client_secret
    this.sandbox = options.sandbox
    this.#client = client
    this.#messageFactory = messageFactory
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
    const request = this.#messageFactory.createRequest('POST', acmeUrl(this.sandbox, path),
      acmeHeaders(this.clientId, this.#clientSecret), JSON.stringify(body))
    return readAcmeResponse(await this.#client.send(request))
  }
  // #endregion send
}
