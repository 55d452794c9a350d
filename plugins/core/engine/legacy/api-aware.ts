import { humanifyValue } from '../observability/humanify.ts'
import { deprecate, PAYWIREDEP007 } from '../deprecations.ts'
import type { AbstractClass } from '../di/definitions.ts'
import { PAYWIRE_ERR_API_CLASS_MISSING, PAYWIRE_ERR_API_NOT_FOUND, PAYWIRE_ERR_UNSUPPORTED_API } from '../errors.ts'

/**
 * 1.x (deprecated, PAYWIREDEP007): an action the gateway gives an API object at lookup time.
 * setApi() throws PAYWIRE_ERR_UNSUPPORTED_API for an API it cannot use, and the gateway
 * then tries its next API. In 2.0 the action takes its API through its constructor.
 */
export interface ApiAwareInterface {
  setApi (api: unknown): void
}

export function isApiAware (value: unknown): value is ApiAwareInterface {
  return typeof (value as ApiAwareInterface | null)?.setApi === 'function'
}

type AbstractConstructor<T = object> = abstract new (...args: any[]) => T

/**
 * 1.x (deprecated): adds setApi() with its apiClass check, and an `api` getter, to a base
 * class. The API class is given here (`class CaptureAction extends ApiAware(GatewayAwareAction, AcmeApi)`)
 * or set in the constructor, the 1.x way (`this.apiClass = AcmeApi`).
 */
export function ApiAware<TBase extends AbstractConstructor, Api = unknown> (Base: TBase, apiClass?: AbstractClass<Api>) {
  abstract class ApiAwareMixin extends Base implements ApiAwareInterface {
    apiClass: AbstractClass<Api> | undefined = apiClass
    #api: { value: Api } | undefined

    constructor (...args: any[]) {
      super(...args)
      deprecate(PAYWIREDEP007)
    }

    setApi (api: unknown): void {
      const Api = this.apiClass
      if (Api === undefined) throw new PAYWIRE_ERR_API_CLASS_MISSING(this.constructor.name)
      if (!(api instanceof Api)) throw new PAYWIRE_ERR_UNSUPPORTED_API(this.constructor.name, `an instance of ${humanifyValue(api)}`, Api.name)
      this.#api = { value: api }
    }

    /** The API the gateway injected; throws PAYWIRE_ERR_API_NOT_FOUND when none was. */
    get api (): Api {
      if (this.#api === undefined) throw apiNotFound(this, [])
      return this.#api.value
    }
  }
  return ApiAwareMixin
}

/** Gives the action the first API it accepts, as Payum's gateway did; PAYWIRE_ERR_API_NOT_FOUND when none fits. */
export function selectApi (action: ApiAwareInterface, apis: readonly unknown[]): void {
  let unsupported: unknown
  for (const api of apis) {
    try {
      action.setApi(api)
      return
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'PAYWIRE_ERR_UNSUPPORTED_API') throw error
      unsupported = error
    }
  }
  throw apiNotFound(action, apis, unsupported)
}

/** What the gateway does for each ApiAware action it meets while looking for the one to run. */
export function injectApi (action: ApiAwareInterface, apis: readonly unknown[]): void {
  deprecate(PAYWIREDEP007)
  selectApi(action, apis)
}

function apiNotFound (action: ApiAwareInterface, apis: readonly unknown[], cause?: unknown): Error {
  const wanted = (action as { apiClass?: AbstractClass }).apiClass?.name ?? 'its apiClass'
  const available = apis.length === 0 ? 'no API' : `only ${apis.map((api) => `an instance of ${humanifyValue(api)}`).join(', ')}`
  return new PAYWIRE_ERR_API_NOT_FOUND(humanifyValue(action), wanted, available, { cause })
}
