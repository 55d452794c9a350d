import {
  deprecate, PAYWIREDEP008, PAYWIREDEP009, PAYWIREDEP010, PAYWIREDEP011, type Deprecation
} from '../deprecations.ts'
import { PAYWIRE_ERR_CIRCULAR_DEPENDENCY } from '../errors.ts'
import { ArrayObject } from '../model/array-object.ts'

/** A lazy entry of a 1.x config: called once, with the whole config, when its key is first read. */
export type ConfigClosure = (config: LegacyConfig) => unknown

/*
 * Entries the engine itself puts in a config (core actions, the HTTP client). Resolving them
 * is not the deprecated "config as a service", and they stay lazy until something reads them,
 * so a gateway that never uses httplug.client is not told it does.
 */
const engineClosures = new WeakSet<Function>()

export function engineEntry (closure: ConfigClosure): ConfigClosure {
  engineClosures.add(closure)
  return closure
}

const READ_DEPRECATIONS: ReadonlyMap<string, Deprecation> = new Map([
  ['httplug.client', PAYWIREDEP008],
  ['httplug.stream_factory', PAYWIREDEP009],
  ['httplug.message_factory', PAYWIREDEP010]
])

/** Functions are closures; classes (config may hold one as a plain value) are not called. */
export function isClosure (value: unknown): value is ConfigClosure {
  return typeof value === 'function' && !/^class\b/.test(Function.prototype.toString.call(value))
}

/**
 * The 1.x gateway config (deprecated): one flat, mutable key → value map. A value may be a
 * closure `(config) => value`, resolved with this whole config the first time its key is
 * read; that is how 1.x factories built their API objects and services.
 */
export class LegacyConfig extends ArrayObject {
  readonly #resolving: string[] = []
  readonly #engineKeys = new Set<string>()

  override get<T = unknown> (key: string, fallback?: T): T {
    const deprecation = READ_DEPRECATIONS.get(key)
    if (deprecation !== undefined) deprecate(deprecation)
    const value = this.data[key]
    if (isClosure(value)) this.data[key] = this.#call(key, value)
    return super.get(key, fallback)
  }

  /** True when the engine, not the factory or the user, provided the entry under `key`. */
  isEngineEntry (key: string): boolean {
    const value = this.data[key]
    return this.#engineKeys.has(key) || (typeof value === 'function' && engineClosures.has(value))
  }

  /** Resolves the closures the factory and the user put in the config, in key order. */
  resolveAll (): this {
    for (const [key, value] of Object.entries(this.data)) {
      if (isClosure(value) && !engineClosures.has(value)) this.get(key)
    }
    return this
  }

  /** Resolves the keys first; the error names the gateway (or factory) and the empty key, never a value. */
  override validateNotEmpty (keys: string[], context = this.#owner()): void {
    for (const key of keys) this.get(key)
    super.validateNotEmpty(keys, context)
  }

  #owner (): string {
    return String(this.data['paywire.gateway_name'] ?? this.data['paywire.factory_name'] ?? 'config')
  }

  #call (key: string, closure: ConfigClosure): unknown {
    const start = this.#resolving.indexOf(key)
    if (start !== -1) {
      throw new PAYWIRE_ERR_CIRCULAR_DEPENDENCY([...this.#resolving.slice(start), key].map((name) => `'${name}'`).join(' -> '))
    }
    if (engineClosures.has(closure)) this.#engineKeys.add(key)
    else deprecate(PAYWIREDEP011)
    this.#resolving.push(key)
    try {
      return closure(this)
    } finally {
      this.#resolving.pop()
    }
  }
}
