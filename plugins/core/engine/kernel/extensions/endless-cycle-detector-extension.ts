import { PAYWIRE_ERR_ENDLESS_CYCLE } from '../../errors.ts'
import type { Context } from './context.ts'
import type { Extension } from './extension.ts'

/** Stops an action loop (an action executing a request that leads back to itself). */
export class EndlessCycleDetectorExtension implements Extension {
  readonly limit: number

  constructor (limit = 100) {
    this.limit = limit
  }

  onPreExecute (context: Context): void {
    if (context.previous.length >= this.limit) throw new PAYWIRE_ERR_ENDLESS_CYCLE(this.limit)
  }
}
