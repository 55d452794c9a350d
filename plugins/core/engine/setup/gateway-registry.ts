import { isContainerGatewayFactory, type ContainerGatewayFactory } from './core-gateway-factory.ts'
import type { ServiceContainer } from '../di/service-container.ts'
import {
  PAYWIRE_ERR_GATEWAY_FACTORY_MISSING,
  PAYWIRE_ERR_INVALID_GATEWAY_FACTORY,
  PAYWIRE_ERR_UNKNOWN_GATEWAY,
  PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY
} from '../errors.ts'
import type { Extension } from '../kernel/extensions/extension.ts'
import { Gateway } from '../kernel/gateway.ts'
import { Logger } from '../observability/logger.ts'
import { didYouMean } from '../suggest.ts'

/** The second argument of addGateway: `factory` plus the factory's options. */
export interface GatewayOptions {
  factory: string
  [option: string]: unknown
}

/**
 * The kinds of factory addGatewayFactory() accepts, by style: the 2.0 container factory here;
 * a module that teaches the registry another style (legacy/: the deprecated 1.x factories)
 * adds its type to this interface and its builder with addGatewayFactoryStyle().
 */
export interface GatewayFactoryStyles {
  container: ContainerGatewayFactory
}

/** A gateway factory of any style the registry knows. */
export type GatewayFactory = GatewayFactoryStyles[keyof GatewayFactoryStyles]

/** What a factory style's builder gets to build one gateway. */
export interface GatewayBuild {
  gatewayName: string
  factoryName: string
  /** The prefix 2.0 factories read options under ("<prefix>.client_id"). */
  optionsPrefix: string
  /** The merged options: addGatewayFactoryConfig() defaults under the gateway's own. */
  options: Record<string, unknown>
  /** A fresh scope for this gateway, under the application's global services. */
  container: ServiceContainer
}

/** Builds gateways of factories that are not 2.0 container factories. */
export interface GatewayFactoryStyle<F = any> {
  accepts (factory: unknown): factory is F
  build (factory: F, build: GatewayBuild): Gateway
}

const styles: GatewayFactoryStyle[] = []

/** Teaches every registry a factory style (once); legacy/ adds the 1.x one when it loads. */
export function addGatewayFactoryStyle (style: GatewayFactoryStyle): void {
  if (!styles.includes(style)) styles.push(style)
}

function styleOf (factory: unknown): GatewayFactoryStyle | undefined {
  return isContainerGatewayFactory(factory) ? undefined : styles.find((style) => style.accepts(factory))
}

interface FactoryEntry {
  factory: GatewayFactory
  /** Holds the factory's definitions; every gateway of the factory gets a child scope of it. */
  scope: ServiceContainer | undefined
  ownsScope: boolean
}

export interface GatewayRegistryOptions {
  container: ServiceContainer
  /** Added to every gateway after its factory built it (storage extension...). */
  extensions: Extension[]
  /** Per-factory default options (addGatewayFactoryConfig), under each gateway's own. */
  factoryDefaults?: Map<string, Record<string, unknown>>
}

function isPlainObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
}

/** Recursive merge of plain objects; later values win, other values are replaced whole. */
export function mergeOptions<T extends Record<string, unknown>> (base: T, override: Record<string, unknown>): T {
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(override)) {
    const current = merged[key]
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeOptions(current, value) : value
  }
  return merged as T
}

/** Merges options given for one gateway name across calls; the result must name a factory. */
export function mergeGatewayOptions (name: string, existing: GatewayOptions | undefined, options: GatewayOptions): GatewayOptions {
  const merged = mergeOptions(existing ?? ({} as GatewayOptions), options)
  if (typeof merged.factory !== 'string' || merged.factory === '') throw new PAYWIRE_ERR_GATEWAY_FACTORY_MISSING(name)
  return merged
}

/**
 * Named gateways, built on first use and cached. Factories may be added at any time
 * before a gateway that needs them is first used (a Fastify gateway plugin registered
 * after the core plugin is still found).
 */
export class GatewayRegistry {
  readonly #container: ServiceContainer
  readonly #extensions: Extension[]
  readonly #factoryDefaults: Map<string, Record<string, unknown>>
  readonly #options = new Map<string, GatewayOptions>()
  readonly #factories = new Map<string, FactoryEntry>()
  readonly #gateways = new Map<string, Gateway>()
  readonly #scopes: ServiceContainer[] = []
  readonly #names = new WeakMap<Gateway, string>()
  readonly #scopeOf = new Map<string, ServiceContainer>()

  constructor (options: GatewayRegistryOptions) {
    this.#container = options.container
    this.#extensions = options.extensions
    this.#factoryDefaults = options.factoryDefaults ?? new Map()
  }

  addGateway (name: string, options: GatewayOptions | Gateway): this {
    if (options instanceof Gateway) {
      this.#gateways.set(name, options.observe(name, this.#logger()))
      this.#names.set(options, name)
      return this
    }
    this.#options.set(name, mergeGatewayOptions(name, this.#options.get(name), options))
    this.#gateways.delete(name)
    return this
  }

  /** `scope`: a container scope already holding the factory's definitions (made by a gateway plugin). */
  addGatewayFactory (name: string, factory: GatewayFactory, scope?: ServiceContainer): this {
    if (!isContainerGatewayFactory(factory) && styleOf(factory) === undefined) throw new PAYWIRE_ERR_INVALID_GATEWAY_FACTORY(name)
    this.#factories.set(name, { factory, scope, ownsScope: false })
    return this
  }

  getGateway (name: string): Gateway {
    return this.#gateways.get(name) ?? this.#build(name)
  }

  hasGateway (name: string): boolean {
    return this.#options.has(name) || this.#gateways.has(name)
  }

  getGatewayNames (): string[] {
    return [...new Set([...this.#options.keys(), ...this.#gateways.keys()])]
  }

  /** The name a gateway built or added here is registered under. */
  nameOf (gateway: Gateway): string | undefined {
    return this.#names.get(gateway)
  }

  /** A service of a gateway's container (built on first use), or undefined when it has none. */
  serviceOf<T> (name: string, id: abstract new (...args: any[]) => T): T | undefined {
    if (!this.hasGateway(name)) return undefined
    this.getGateway(name)
    const scope = this.#scopeOf.get(name)
    return scope?.has(id) === true ? scope.get(id) : undefined
  }

  getGatewayOptions (name: string): Readonly<GatewayOptions> | undefined {
    return this.#options.get(name)
  }

  getGatewayFactory (name: string): GatewayFactory {
    const entry = this.#factories.get(name)
    if (entry === undefined) throw this.#unknownFactory(name, '-')
    return entry.factory
  }

  getGatewayFactoryNames (): string[] {
    return [...this.#factories.keys()]
  }

  /** Disposes every scope this registry made (gateway scopes first, then factory scopes). */
  async close (): Promise<void> {
    const scopes = this.#scopes.splice(0)
    await Promise.all(scopes.map((scope) => scope.dispose()))
    for (const entry of this.#factories.values()) {
      if (entry.ownsScope && entry.scope !== undefined) await entry.scope.dispose()
    }
  }

  #build (name: string): Gateway {
    const options = this.#options.get(name)
    if (options === undefined) {
      throw new PAYWIRE_ERR_UNKNOWN_GATEWAY(name, ` Registered gateways: ${this.getGatewayNames().join(', ') || 'none'}.`)
    }
    const factoryName = options.factory
    const entry = this.#factories.get(factoryName)
    if (entry === undefined) throw this.#unknownFactory(factoryName, name)
    if (!isContainerGatewayFactory(entry.factory)) return this.#buildWithStyle(name, factoryName, entry.factory, options)
    if (entry.scope === undefined) {
      entry.scope = this.#container.createScope().register(entry.factory.configureContainer())
      entry.ownsScope = true
    }
    // Global services → factory definitions → this gateway's options: user values always win.
    const prefix = entry.factory.optionsPrefix ?? factoryName
    const scope = entry.scope.createScope().register(gatewayValues(name, factoryName,
      mergeOptions(this.#factoryDefaults.get(factoryName) ?? {}, options), prefix))
    const gateway = entry.factory.createGateway(scope)
    for (const extension of this.#extensions) gateway.addExtension(extension)
    this.#scopes.push(scope)
    this.#gateways.set(name, gateway.observe(name, this.#logger()))
    this.#names.set(gateway, name)
    this.#scopeOf.set(name, scope)
    return gateway
  }

  #logger (): Logger | undefined {
    return this.#container.has(Logger) ? this.#container.get(Logger) : undefined
  }

  #unknownFactory (factoryName: string, gatewayName: string): Error {
    const names = this.getGatewayFactoryNames()
    return new PAYWIRE_ERR_UNKNOWN_GATEWAY_FACTORY(factoryName, gatewayName, didYouMean(factoryName, names), names.join(', ') || 'none')
  }

  /** Same option precedence as 2.0 (factory defaults < addGatewayFactoryConfig < gateway options), same extensions. */
  #buildWithStyle (name: string, factoryName: string, factory: GatewayFactory, options: GatewayOptions): Gateway {
    const scope = this.#container.createScope()
    this.#scopes.push(scope)
    const gateway = (styleOf(factory) as GatewayFactoryStyle).build(factory, {
      gatewayName: name,
      factoryName,
      optionsPrefix: factoryName,
      options: mergeOptions(this.#factoryDefaults.get(factoryName) ?? {}, options),
      container: scope
    })
    for (const extension of this.#extensions) gateway.addExtension(extension)
    this.#gateways.set(name, gateway.observe(name, this.#logger()))
    this.#names.set(gateway, name)
    return gateway
  }
}

/**
 * Options become container values: "client_id" is shorthand for "<prefix>.client_id" (the
 * factory's optionsPrefix, else the name it is registered under); keys with a dot
 * ("acme.sandbox") are used as they are.
 */
export function gatewayValues (name: string, factoryName: string, options: Record<string, unknown>,
  prefix = factoryName): Record<string, unknown> {
  const values: Record<string, unknown> = {
    'paywire.gateway_name': name,
    'paywire.factory_name': factoryName
  }
  for (const [key, value] of Object.entries(options)) {
    if (key === 'factory') continue
    values[key.includes('.') ? key : `${prefix}.${key}`] = value
  }
  return values
}
