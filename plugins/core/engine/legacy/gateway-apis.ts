import { deprecate, PAYWIREDEP006 } from '../deprecations.ts'
import { Gateway } from '../kernel/gateway.ts'
import { injectApi, isApiAware } from './api-aware.ts'

/*
 * Gateway.addApi() and Gateway.apis, the 1.x way to hand ApiAware actions their API. They live
 * here, not in the kernel, so that deleting legacy/ (as 3.0 will) removes them and touches
 * nothing else: loading this module adds them to Gateway's prototype, and the APIs reach the
 * actions through the gateway's lookup hook.
 */

declare module '../kernel/gateway.ts' {
  interface Gateway {
    /** @deprecated (PAYWIREDEP006): the APIs given to ApiAware actions. */
    readonly apis: readonly unknown[]
    /**
     * @deprecated (PAYWIREDEP006), removed in the next major version: give the action its API through
     * its constructor. Until then, ApiAware actions get the first API they accept at lookup.
     */
    addApi (api: unknown, prepend?: boolean): this
  }
}

const apisOf = new WeakMap<Gateway, unknown[]>()

function addApi (this: Gateway, api: unknown, prepend = false): Gateway {
  deprecate(PAYWIREDEP006)
  let apis = apisOf.get(this)
  if (apis === undefined) {
    const added: unknown[] = apis = []
    apisOf.set(this, added)
    this.onActionLookup((action) => { if (isApiAware(action)) injectApi(action, added) })
  }
  if (prepend) apis.unshift(api)
  else apis.push(api)
  return this
}

Object.defineProperties(Gateway.prototype, {
  addApi: { value: addApi, writable: true, configurable: true },
  apis: { get (this: Gateway): readonly unknown[] { return apisOf.get(this) ?? [] }, configurable: true }
})
