import { ArrayObject } from '../../model/array-object.ts'
import { BaseGetStatus } from '../../requests/get-status.ts'
import type { PaymentState, PaymentStateReader } from '../../requests/payment-state.ts'
import type { Action } from './action.ts'

/**
 * GetHumanStatus and GetBinaryStatus, answered from the gateway's PaymentStateReader: a
 * gateway states its statuses and amounts once, in its reader, and the same reading serves
 * status requests, done pages and the payment events commits stage. The core factory adds
 * it after the gateway's own actions, so a hand-written status action still answers first;
 * without a reader it supports nothing.
 */
export class StatusFromReaderAction implements Action {
  /** Its constructor parameters, for constructorParameter() (see autowire()). */
  static readonly inject = ['reader']
  readonly reader: PaymentStateReader | undefined

  constructor (reader?: PaymentStateReader) {
    this.reader = reader
  }

  supports (request: unknown): boolean {
    return request instanceof BaseGetStatus && this.#read(request.model) !== undefined
  }

  execute (request: BaseGetStatus<unknown>): void {
    const state = this.#read(request.model) as PaymentState
    request.mark(state.status)
    if (state.amounts !== undefined) request.setAmounts(state.amounts)
  }

  /** A details bag reads as the record that holds it (`{ details }`), any other model as the record it is. */
  #read (model: unknown): PaymentState | undefined {
    if (this.reader === undefined || typeof model !== 'object' || model === null) return undefined
    return this.reader.read(model instanceof ArrayObject ? { details: model.data } : model as Record<string, unknown>)
  }
}
