import { PAYWIRE_ERR_GET_TOKEN_NOT_FOUND } from '../../errors.ts'
import { GetToken } from '../../requests/get-token.ts'
import type { TokenStorage } from '../../security/token-storage.ts'
import type { Action } from './action.ts'

export class GetTokenAction implements Action {
  /** Its constructor parameters, for constructorParameter('tokenStorage', ...) (see autowire()). */
  static readonly inject = ['tokenStorage']
  readonly tokenStorage: TokenStorage

  constructor (tokenStorage: TokenStorage) {
    this.tokenStorage = tokenStorage
  }

  supports (request: unknown): boolean {
    return request instanceof GetToken
  }

  async execute (request: GetToken): Promise<void> {
    const token = await this.tokenStorage.find(request.hash)
    if (token === null) throw new PAYWIRE_ERR_GET_TOKEN_NOT_FOUND()
    request.token = token
  }
}
