import {
  PAYWIRE_ERR_TOKEN_NOT_FOUND,
  PAYWIRE_ERR_TOKEN_PARAMETER_MISSING,
  PAYWIRE_ERR_TOKEN_PATH_MISMATCH
} from '../errors.ts'
import { Token } from '../model/token.ts'
import { TOKEN_PARAMETER } from './token-factory.ts'
import type { TokenStorage } from './token-storage.ts'

/** The parts of an HTTP request a token can come from. */
export interface VerifiableRequest {
  /** The request URL or path, query included or not. */
  url: string
  params?: Record<string, unknown>
  query?: Record<string, unknown>
  body?: unknown
}

export interface VerifyOptions {
  /** Claim the token for this long (milliseconds). */
  lockMs?: number
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{16,128}$/

function decodedPath (url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url, 'http://paywire.invalid').pathname)
  } catch {
    return undefined
  }
}

/**
 * Finds the token a request carries and checks it was made for this URL. Only paths are
 * compared (scheme, host and query are not), as proxies rewrite the former and gateways
 * append return parameters to the latter.
 */
export class HttpRequestVerifier {
  readonly tokenStorage: TokenStorage
  readonly tokenParameter: string
  /** The lock each claimed token holds, so only its own request releases it. */
  readonly #locks = new WeakMap<Token, string>()

  constructor (tokenStorage: TokenStorage, tokenParameter = TOKEN_PARAMETER) {
    this.tokenStorage = tokenStorage
    this.tokenParameter = tokenParameter
  }

  /**
   * With `lockMs`, the token is also claimed for this request (released with release() or
   * invalidate()), so concurrent requests with one token never both run the gateway.
   */
  async verify (request: VerifiableRequest | Token, options: VerifyOptions = {}): Promise<Token> {
    if (request instanceof Token) return request
    const hash = this.#findHash(request)
    if (hash === undefined) throw new PAYWIRE_ERR_TOKEN_PARAMETER_MISSING(this.tokenParameter)
    if (!TOKEN_SHAPE.test(hash)) throw new PAYWIRE_ERR_TOKEN_NOT_FOUND()
    let token: Token | null
    if (options.lockMs === undefined) {
      token = await this.tokenStorage.find(hash)
    } else {
      const claim = await this.tokenStorage.claim(hash, options.lockMs)
      token = claim?.token ?? null
      if (claim !== null) this.#locks.set(claim.token, claim.lockId)
    }
    if (token === null) throw new PAYWIRE_ERR_TOKEN_NOT_FOUND()
    const requestPath = decodedPath(request.url)
    if (requestPath === undefined || requestPath !== decodedPath(token.targetUrl)) {
      await this.release(token)
      throw new PAYWIRE_ERR_TOKEN_PATH_MISMATCH()
    }
    return token
  }

  /** Releases a token claimed by verify() without invalidating it (the buyer will come back). */
  async release (token: Token): Promise<void> {
    const lockId = this.#locks.get(token)
    if (lockId === undefined) return
    this.#locks.delete(token)
    await this.tokenStorage.unlock(token.hash, lockId)
  }

  /** Deletes the token (and releases its claim): it cannot be used again. */
  async invalidate (token: Token): Promise<boolean> {
    const lockId = this.#locks.get(token)
    this.#locks.delete(token)
    return await this.tokenStorage.invalidate(token.hash, lockId)
  }

  #findHash (request: VerifiableRequest): string | undefined {
    const body = typeof request.body === 'object' && request.body !== null ? request.body as Record<string, unknown> : {}
    for (const value of [request.params?.token, request.params?.[this.tokenParameter], request.query?.[this.tokenParameter], body[this.tokenParameter]]) {
      if (typeof value === 'string' && value !== '') return value
    }
    return undefined
  }
}
