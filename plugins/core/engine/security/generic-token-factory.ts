import { PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED } from '../errors.ts'
import type { Token, TokenKind } from '../model/token.ts'
import type { TokenFactory, UrlParameters } from './token-factory.ts'

export type TokenPaths = Record<string, string>

/** Relative to the base URL; the Fastify plugin replaces them with its routes. */
export const DEFAULT_TOKEN_PATHS: Readonly<TokenPaths> = {
  capture: 'capture',
  authorize: 'authorize',
  refund: 'refund',
  cancel: 'cancel',
  payout: 'payout',
  notify: 'notify',
  sync: 'sync',
  done: 'done'
}

/**
 * The token helpers a shop uses: one per kind of request. An after path may be a path, a
 * URL, or the name of a configured path ("done").
 */
export class GenericTokenFactory {
  readonly tokenFactory: TokenFactory
  readonly paths: Readonly<TokenPaths>

  constructor (tokenFactory: TokenFactory, paths: TokenPaths = DEFAULT_TOKEN_PATHS) {
    this.tokenFactory = tokenFactory
    this.paths = { ...paths }
  }

  getPath (name: string): string {
    const path = Object.hasOwn(this.paths, name) ? this.paths[name] : undefined
    if (path === undefined) throw new PAYWIRE_ERR_TOKEN_PATH_NOT_CONFIGURED(name, Object.keys(this.paths).join(', '))
    return path
  }

  createToken (gatewayName: string, model: object | null, targetPath: string, targetParameters?: UrlParameters,
    afterPath?: string | null, afterParameters?: UrlParameters): Promise<Token> {
    return this.tokenFactory.createToken(gatewayName, model, targetPath, targetParameters, afterPath, afterParameters)
  }

  /**
   * Two tokens: one for the done page (its own, so the result page can be verified too)
   * and the capture token whose after URL is the done token's URL. Stored together.
   */
  createCaptureToken (gatewayName: string, model: object, afterPath: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('capture', gatewayName, model, afterPath, afterParameters)
  }

  /**
   * The capture token and its done token, made but not stored: for a caller that stores them
   * together with the payment they point at (Paywire.prepareCapture). `tokens` holds both.
   */
  buildCaptureToken (gatewayName: string, model: object, afterPath: string, afterParameters?: UrlParameters): { token: Token, tokens: Token[] } {
    return this.#build('capture', gatewayName, model, afterPath, afterParameters)
  }

  createAuthorizeToken (gatewayName: string, model: object, afterPath: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('authorize', gatewayName, model, afterPath, afterParameters)
  }

  createPayoutToken (gatewayName: string, model: object, afterPath: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('payout', gatewayName, model, afterPath, afterParameters)
  }

  /** The after token is made only when an after path is given. */
  createRefundToken (gatewayName: string, model: object, afterPath?: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('refund', gatewayName, model, afterPath, afterParameters)
  }

  createCancelToken (gatewayName: string, model: object, afterPath?: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('cancel', gatewayName, model, afterPath, afterParameters)
  }

  createSyncToken (gatewayName: string, model: object, afterPath?: string, afterParameters?: UrlParameters): Promise<Token> {
    return this.#withAfterToken('sync', gatewayName, model, afterPath, afterParameters)
  }

  /** Without a model: a gateway-wide notify token, for providers with one static webhook URL. */
  async createNotifyToken (gatewayName: string, model: object | null = null): Promise<Token> {
    const token = this.tokenFactory.buildToken({ gatewayName, model, targetPath: this.getPath('notify'), kind: 'notify' })
    await this.tokenFactory.tokenStorage.save([token])
    return token
  }

  async #withAfterToken (kind: TokenKind, gatewayName: string, model: object, afterPath: string | undefined,
    afterParameters: UrlParameters | undefined): Promise<Token> {
    const { token, tokens } = this.#build(kind, gatewayName, model, afterPath, afterParameters)
    await this.tokenFactory.tokenStorage.save(tokens)
    return token
  }

  #build (kind: TokenKind, gatewayName: string, model: object, afterPath: string | undefined,
    afterParameters: UrlParameters | undefined): { token: Token, tokens: Token[] } {
    const targetPath = this.getPath(kind)
    if (afterPath === undefined) {
      const token = this.tokenFactory.buildToken({ gatewayName, model, targetPath, kind })
      return { token, tokens: [token] }
    }
    const afterTarget = Object.hasOwn(this.paths, afterPath) ? this.getPath(afterPath) : afterPath
    const after = this.tokenFactory.buildToken({
      gatewayName, model, targetPath: afterTarget, targetParameters: afterParameters, kind: 'after'
    })
    const token = this.tokenFactory.buildToken({ gatewayName, model, targetPath, afterPath: after.targetUrl, kind })
    return { token, tokens: [after, token] }
  }
}
