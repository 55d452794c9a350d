import type { Action } from '../actions/action.ts'
import type { Gateway } from '../gateway.ts'
import type { Reply } from '../../requests/replies.ts'
import type { UnitOfWork } from '../../commit/unit-of-work.ts'

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

  constructor (gateway: Gateway, request: unknown, previous: readonly Context[], unit?: UnitOfWork) {
    this.gateway = gateway
    this.request = request
    this.previous = previous
    this.unit = unit
  }

  /** The top-level context of this chain of nested executes. */
  get root (): Context {
    return this.previous[0] ?? this
  }
}
