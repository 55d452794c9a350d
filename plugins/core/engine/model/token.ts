import { generateTokenHash } from '../random.ts'
import { Identity } from './identity.ts'

/** What a token lets its holder do; token stores use it to pick a lifetime. */
export type TokenKind = 'capture' | 'authorize' | 'refund' | 'cancel' | 'payout' | 'notify' | 'sync' | 'after' | (string & {})

export interface TokenJSON {
  hash: string
  gatewayName: string
  targetUrl: string
  afterUrl: string | null
  details: { id: string, modelName: string } | null
  kind: TokenKind
}

/**
 * A security token: an unguessable hash in a URL that lets a buyer (or a provider's
 * notification) run one request through one gateway on one stored model. `details` is
 * an Identity pointing at the model, or null for gateway-wide notify tokens.
 */
export class Token {
  hash: string
  gatewayName = ''
  targetUrl = ''
  afterUrl: string | null = null
  details: Identity | null = null
  kind: TokenKind = 'capture'

  constructor (hash: string = generateTokenHash()) {
    this.hash = hash
  }

  toJSON (): TokenJSON {
    return {
      hash: this.hash,
      gatewayName: this.gatewayName,
      targetUrl: this.targetUrl,
      afterUrl: this.afterUrl,
      details: this.details === null ? null : this.details.toJSON(),
      kind: this.kind
    }
  }

  static fromJSON (json: TokenJSON): Token {
    const token = new Token(json.hash)
    token.gatewayName = json.gatewayName
    token.targetUrl = json.targetUrl
    token.afterUrl = json.afterUrl
    token.details = json.details === null ? null : new Identity(json.details.id, json.details.modelName)
    token.kind = json.kind
    return token
  }
}
