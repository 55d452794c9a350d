import {
  PAYWIRE_ERR_TOKEN_NOT_FOUND,
  PAYWIRE_ERR_TOKEN_PARAMETER_MISSING,
  PAYWIRE_ERR_TOKEN_PATH_MISMATCH
} from '../errors.ts'
import { Token } from '../model/token.ts'
import { samePath } from './url-paths.ts'
import { TOKEN_PARAMETER } from './token-factory.ts'
import type { ReadCache } from '../storage/read-cache.ts'
import type { TokenClaim, TokenStorage } from './token-storage.ts'

/** The parts of an HTTP request a token can come from. */
export interface VerifiableRequest {
  /** The request URL or path, query included or not. */
  url: string
  params?: Record<string, unknown>
  query?: Record<string, unknown>
  body?: unknown
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/

/**
 * Finds the token a request carries and checks it was made for this URL. Only paths are
 * compared (scheme, host and query are not), as proxies rewrite the former and gateways
 * append return parameters to the latter.
 */
export class HttpRequestVerifier {
  readonly tokenStorage: TokenStorage
  readonly tokenParameter: string

  constructor (tokenStorage: TokenStorage, tokenParameter = TOKEN_PARAMETER) {
    this.tokenStorage = tokenStorage
    this.tokenParameter = tokenParameter
  }

  async verify (request: VerifiableRequest | Token): Promise<Token> {
    if (request instanceof Token) return request
    return this.#checked(request, await this.tokenStorage.find(this.#hashOf(request)))
  }

  /**
   * verify(), and the token's model read with it where the store allows (TokenStorage.findAndRead):
   * pass `reads` to the gateway's execute (ExecuteOptions.reads) and it is not read again.
   */
  async verifyAndRead (request: VerifiableRequest): Promise<{ token: Token, reads?: ReadCache }> {
    const { token, reads } = await this.tokenStorage.findAndRead(this.#hashOf(request))
    return { token: this.#checked(request, token), reads }
  }

  /**
   * verify(), and the token's payment claimed for this request (see ExclusiveExecutor), in
   * one round trip where the store allows it. Throws PAYWIRE_ERR_TOKEN_USED (with the after
   * URL) for a used token and PAYWIRE_ERR_PAYMENT_BUSY while another request holds the claim.
   */
  async verifyAndClaim (request: VerifiableRequest, claimTtlMs: number): Promise<TokenClaim> {
    const claimed = await this.tokenStorage.claim(this.#hashOf(request), claimTtlMs).catch((error: unknown) => {
      // A used link sent to another route is no reload of it: it gets no way to its result.
      const targetUrl = (error as { targetUrl?: unknown }).targetUrl
      if (typeof targetUrl === 'string' && !samePath(request.url, targetUrl)) throw new PAYWIRE_ERR_TOKEN_PATH_MISMATCH()
      throw error
    })
    if (claimed === null) throw new PAYWIRE_ERR_TOKEN_NOT_FOUND()
    if (!samePath(request.url, claimed.token.targetUrl)) {
      await this.tokenStorage.releaseClaim(claimed.claim)
      throw new PAYWIRE_ERR_TOKEN_PATH_MISMATCH()
    }
    return claimed
  }

  /** Uses the token up: it cannot be used again. */
  async invalidate (token: Token): Promise<boolean> {
    return await this.tokenStorage.invalidate(token.hash)
  }

  #checked (request: VerifiableRequest, token: Token | null): Token {
    if (token === null) throw new PAYWIRE_ERR_TOKEN_NOT_FOUND()
    if (!samePath(request.url, token.targetUrl)) throw new PAYWIRE_ERR_TOKEN_PATH_MISMATCH()
    return token
  }

  #hashOf (request: VerifiableRequest): string {
    const hash = this.#findHash(request)
    if (hash === undefined) throw new PAYWIRE_ERR_TOKEN_PARAMETER_MISSING(this.tokenParameter)
    if (!TOKEN_SHAPE.test(hash)) throw new PAYWIRE_ERR_TOKEN_NOT_FOUND()
    return hash
  }

  #findHash (request: VerifiableRequest): string | undefined {
    const body = typeof request.body === 'object' && request.body !== null ? request.body as Record<string, unknown> : {}
    for (const value of [request.params?.token, request.params?.[this.tokenParameter], request.query?.[this.tokenParameter], body[this.tokenParameter]]) {
      if (typeof value === 'string' && value !== '') return value
    }
    return undefined
  }
}
