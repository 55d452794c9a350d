import { Identity } from '../model/identity.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
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
 * payment is stored before the buyer is redirected) and on an error. A model it loaded
 * and nobody changed is not saved again.
 */
export class StorageExtension implements Extension {
  readonly storages: StorageRegistry
  // Per top-level execute: concurrent executes on one gateway never share a schedule.
  #scheduled = new WeakMap<Context, Set<object>>()
  // Models as loaded: one nobody changed is not written back, so a read (a done page, a
  // status check) never overwrites what a concurrent request stored meanwhile.
  #loaded = new WeakMap<object, string>()

  constructor (storages: StorageRegistry) {
    this.storages = storages
  }

  async onPreExecute (context: Context): Promise<void> {
    const request = context.request
    if (!isModelAware(request)) return
    const model = request.model
    if (model instanceof Identity) {
      const found = await this.storages.getByModelName(model.modelName)?.find(model)
      if (found !== null && found !== undefined) {
        this.#loaded.set(found, JSON.stringify(found))
        request.model = found
      }
    }
    this.#schedule(context, request.model)
  }

  async onPostExecute (context: Context): Promise<void> {
    if (isModelAware(context.request)) this.#schedule(context, context.request.model)
    if (context.previous.length > 0) return
    const scheduled = this.#scheduled.get(context)
    if (scheduled === undefined) return
    this.#scheduled.delete(context)
    for (const model of scheduled) {
      const loaded = this.#loaded.get(model)
      if (loaded !== undefined) {
        const current = JSON.stringify(model)
        if (loaded === current) continue
        this.#loaded.set(model, current)
      }
      // #schedule() only keeps models a storage supports.
      const storage = this.storages.supporting(model)
      if (context.writes === undefined) await storage?.update(model)
      else context.writes.add(async () => await storage?.update(model))
    }
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
