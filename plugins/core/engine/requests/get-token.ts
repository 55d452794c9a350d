import type { Token } from '../model/token.ts'

/** Loads a token by hash, for notifications that carry a token hash in their payload. */
export class GetToken {
  readonly hash: string
  token: Token | undefined = undefined

  constructor (hash: string) {
    this.hash = hash
  }
}
