import { ArrayObject } from '../model/array-object.ts'
import { Identity } from '../model/identity.ts'
import { isPlainRecord } from '../requests/generic.ts'
import type { BaseGetStatus } from '../requests/get-status.ts'
import type { Action } from './actions/action.ts'
import { ExecuteSameRequestWithModelDetailsAction } from './actions/execute-same-request-with-model-details-action.ts'
import { StatusFromReaderAction } from './actions/status-from-reader-action.ts'
import { EndlessCycleDetectorExtension } from './extensions/endless-cycle-detector-extension.ts'
import type { Context } from './extensions/context.ts'
import type { Extension } from './extensions/extension.ts'
import { StorageExtension } from './extensions/storage-extension.ts'

/*
 * A status read answered without an execute loop. Where the only actions that could support a
 * status request of some class are Paywire's own unwrapping action and its reader-backed status
 * action, and the only extensions are Paywire's own storage extension and cycle detector, the
 * chain of executes a status read makes (Token → Identity → Payment → details → the reader)
 * changes nothing and nobody can see it: it is walked here, with the same choices in the same
 * order, on the execute's own context: no nested context, hook run or span per step. A gateway with its own status action, or an
 * extension of the application's, keeps the executes (decided once per request class).
 */
export interface StatusPlan {
  readonly candidates: readonly Action[]
  readonly storage: StorageExtension | undefined
  /** Executes the cycle detector allows, nested ones included. */
  readonly limit: number
}

/** True when every extension is Paywire's storage extension or cycle detector: none of the application's watches. */
export function ownExtensionsOnly (extensions: readonly Extension[]): boolean {
  return extensions.every((extension) => extension.constructor === StorageExtension || extension.constructor === EndlessCycleDetectorExtension)
}

export function statusPlan (candidates: readonly Action[], extensions: readonly Extension[]): StatusPlan | undefined {
  let storage: StorageExtension | undefined
  let limit = Infinity
  for (const extension of extensions) {
    if (extension.constructor === StorageExtension && storage === undefined) storage = extension as StorageExtension
    else if (extension.constructor === EndlessCycleDetectorExtension) limit = Math.min(limit, (extension as EndlessCycleDetectorExtension).limit)
    else return undefined
  }
  let reader = false
  for (const action of candidates) {
    const type: unknown = action.constructor
    if (type === StatusFromReaderAction) reader = true
    else if (type !== ExecuteSameRequestWithModelDetailsAction) return undefined
  }
  return reader ? { candidates, storage, limit } : undefined
}

/**
 * Marks the context's request as the executes would, and returns true; false when they would
 * have failed (no stored model, no action supports it, the cycle limit): the request's model is
 * put back and the caller runs the executes on the same context, which fail as they always did.
 */
export async function readStatus (context: Context, plan: StatusPlan): Promise<boolean> {
  const request = context.request as BaseGetStatus<unknown>
  const original = request.model
  let loaded = false
  for (let level = context.previous.length; level < plan.limit; level++) {
    // The storage extension loads the identity (and schedules what it loaded) as at each execute.
    if (request.model instanceof Identity && !loaded && plan.storage !== undefined) {
      loaded = true
      await plan.storage.onPreExecute(context)
    }
    const action = plan.candidates.find((candidate) => candidate.supports(request))
    if (action instanceof StatusFromReaderAction) {
      action.execute(request)
      return true
    }
    if (action === undefined) break
    // ExecuteSameRequestWithModelDetailsAction: the same request on the model's details.
    const details = (request.model as { details: unknown }).details
    request.model = isPlainRecord(details) ? new ArrayObject(details) : details
  }
  request.model = original
  return false
}
