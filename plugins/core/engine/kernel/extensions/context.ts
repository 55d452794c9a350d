import type { Action } from '../actions/action.ts'
import type { Gateway } from '../gateway.ts'
import type { Reply } from '../../requests/replies.ts'
import type { UnitOfWork } from '../../commit/unit-of-work.ts'
import type { ReadCache } from '../../storage/read-cache.ts'

/**
 * One execute() call as extensions see it. `previous` holds the enclosing calls of the
 * same gateway, outermost first: an empty list means this is the top-level execute.
 */
export class Context {
  readonly gateway: Gateway
  readonly request: unknown
  readonly previous: readonly Context[]
  action: Action | undefined = undefined
  reply: Reply | undefined = undefined
  exception: Error | undefined = undefined
  /** Where the top-level execute's writes go when its caller commits them (ExecuteOptions.unit). */
  readonly unit: UnitOfWork | undefined
  /** What the top-level execute's caller read ahead for it (ExecuteOptions.reads). */
  readonly reads: ReadCache | undefined

  constructor (gateway: Gateway, request: unknown, previous: readonly Context[], unit?: UnitOfWork, reads?: ReadCache) {
    this.gateway = gateway
    this.request = request
    this.previous = previous
    this.unit = unit
    this.reads = reads
  }

  /** The top-level context of this chain of nested executes. */
  get root (): Context {
    return this.previous[0] ?? this
  }
}
