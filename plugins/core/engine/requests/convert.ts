import type { Token } from '../model/token.ts'

/** Turns a generic model (Payment, Payout) into the gateway's own details format. */
export class Convert<R = Record<string, unknown>> {
  readonly source: unknown
  readonly to: string
  readonly token: Token | null
  result: R | undefined = undefined

  constructor (source: unknown, to: string, token: Token | null = null) {
    this.source = source
    this.to = to
    this.token = token
  }
}
