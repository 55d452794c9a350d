import { Identity } from '../../model/identity.ts'
import { Checkpoint } from '../../requests/checkpoint.ts'
import { AbstractStorage } from '../../storage/abstract-storage.ts'
import type { StorageRegistry } from '../../storage/storage-registry.ts'
import type { Context } from './context.ts'
import type { Extension } from './extension.ts'

interface ModelAware {
  model: unknown
}

function isModelAware (request: unknown): request is ModelAware {
  return typeof request === 'object' && request !== null && 'model' in request
}

/**
 * Loads models from identities before actions see them, and saves every model a gateway
 * touched exactly once, when the outermost execute ends: on success, on a reply (so a
 * payment is stored before the buyer is redirected) and on an error. A model nobody
 * changed since it was loaded, here or by the caller (`execute(new GetHumanStatus(payment))`
 * on a payment it found), is not saved again: a read leaves the version as it is, so it
 * never makes a concurrent writer fail. A Checkpoint saves the changed models at once.
 *
 * Saves are compare-and-set (Storage.update): a model changed by another writer since it
 * was loaded is not overwritten. With a unit of work (ExecuteOptions.unit), saves go into
 * the unit and are committed by whoever runs it, together with its token and claim.
 */
export class StorageExtension implements Extension {
  readonly storages: StorageRegistry
  // Per top-level execute: concurrent executes on one gateway never share a schedule.
  #scheduled = new WeakMap<Context, Set<object>>()
  // Models of storages that keep no snapshot of their own, as loaded or last saved: one nobody
  // changed is not written again, so a read (a done page, a status check) never writes at all.
  // An AbstractStorage keeps that snapshot already (isUnchanged): a second one here would
  // encode every model it loads twice more per request.
  #saved = new WeakMap<object, string>()

  constructor (storages: StorageRegistry) {
    this.storages = storages
  }

  // No promise where nothing is awaited (the gateway then makes none either): most hooks only schedule.
  onPreExecute (context: Context): Promise<void> | undefined {
    const request = context.request
    if (request instanceof Checkpoint) return this.#save(context.root, false)
    if (!isModelAware(request)) return undefined
    if (request.model instanceof Identity) return this.#load(context, request, request.model)
    this.#schedule(context, request.model)
    return undefined
  }

  onPostExecute (context: Context): Promise<void> | undefined {
    if (isModelAware(context.request)) this.#schedule(context, context.request.model)
    if (context.previous.length > 0) return undefined
    return this.#save(context, true)
  }

  async #load (context: Context, request: ModelAware, identity: Identity): Promise<void> {
    const storage = this.storages.getByModelName(identity.modelName)
    // What the caller read with the token (the claim script's copy of the payment) saves a round trip.
    const found = await storage?.find(identity, { reads: context.root.reads })
    if (found !== null && found !== undefined) {
      if (!(storage instanceof AbstractStorage)) this.#saved.set(found, JSON.stringify(found))
      request.model = found
    }
    this.#schedule(context, request.model)
  }

  /**
   * Saves the root's changed models: at its end (then forgetting them), or now for a checkpoint.
   * Into the root's unit at its end, nothing is awaited: no promise then.
   */
  #save (root: Context, end: boolean): Promise<void> | undefined {
    const scheduled = this.#scheduled.get(root)
    if (scheduled === undefined) return undefined
    if (end) this.#scheduled.delete(root)
    const changed = [...scheduled].filter((model) => {
      // #schedule() only keeps models a storage supports.
      const storage = this.storages.supporting(model)!
      // Loaded here or read by the caller and passed in, and left as read.
      return !(storage instanceof AbstractStorage ? storage.isUnchanged(model) : this.#saved.get(model) === JSON.stringify(model))
    })
    const unit = root.unit
    if (unit !== undefined) {
      for (const model of changed) unit.save(model, this.storages.supporting(model)!)
      return end ? undefined : this.#checkpoint(unit, changed)
    }
    return this.#update(changed, end)
  }

  async #update (changed: object[], end: boolean): Promise<void> {
    for (const model of changed) await this.storages.supporting(model)!.update(model)
    if (!end) this.#remember(changed)
  }

  async #checkpoint (unit: NonNullable<Context['unit']>, changed: object[]): Promise<void> {
    await unit.checkpoint()
    this.#remember(changed)
  }

  /**
   * Only once stored (with the stamps the storage set): a failed checkpoint leaves them to be
   * saved again. An AbstractStorage's own snapshot was renewed when the commit settled them.
   */
  #remember (changed: object[]): void {
    for (const model of changed) if (!(this.storages.supporting(model) instanceof AbstractStorage)) this.#saved.set(model, JSON.stringify(model))
  }

  #schedule (context: Context, model: unknown): void {
    if (typeof model !== 'object' || model === null || this.storages.supporting(model) === undefined) return
    const root = context.root
    let scheduled = this.#scheduled.get(root)
    if (scheduled === undefined) {
      scheduled = new Set()
      this.#scheduled.set(root, scheduled)
    }
    scheduled.add(model)
  }
}
