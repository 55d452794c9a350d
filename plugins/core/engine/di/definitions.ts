import type { ServiceContainer } from './service-container.ts'

/*
 * The vocabulary of configureContainer(): config values under string keys, services under
 * class references. `autowire(Class)` builds a class with its constructor arguments taken
 * from the container; `get(id)` refers to another entry, resolved when the service is built.
 */

export type Class<T = unknown> = new (...args: any[]) => T
export type AbstractClass<T = unknown> = abstract new (...args: any[]) => T
/** A class reference (collision-free) or a string (configuration values: "acme.api_key"). */
export type ServiceId<T = unknown> = string | AbstractClass<T>

const DEFINITION = Symbol('paywire.definition')

export interface Reference<T = unknown> {
  readonly [DEFINITION]: 'reference'
  readonly id: ServiceId<T>
}

export interface AutowireDefinition<T = unknown> {
  readonly [DEFINITION]: 'autowire'
  readonly target: Class<T>
  readonly positional: readonly unknown[] | undefined
  readonly named: ReadonlyMap<string, unknown>
  readonly dispose: ((instance: T) => unknown) | undefined
  /** Positional constructor arguments; each may be a get() reference or a literal. */
  constructor (...args: unknown[]): AutowireDefinition<T>
  /** One named constructor argument; the others still come from the container. */
  constructorParameter (name: string, value: unknown): AutowireDefinition<T>
  /** Called with the instance when its gateway (or app) is closed. */
  disposer (dispose: (instance: T) => unknown): AutowireDefinition<T>
}

export interface FactoryDefinition<T = unknown> {
  readonly [DEFINITION]: 'factory'
  readonly build: (container: ServiceContainer) => T
  readonly dispose: ((instance: T) => unknown) | undefined
  disposer (dispose: (instance: T) => unknown): FactoryDefinition<T>
}

export type Definition<T = unknown> = Reference<T> | AutowireDefinition<T> | FactoryDefinition<T>

export interface ContainerConfiguration {
  [key: string]: unknown
  [key: symbol]: unknown
  /** Template namespaces → directories; merge the parent's, never replace them. */
  'paywire.paths'?: TemplatePaths
}

export type TemplatePaths = Record<string, string | string[]>

const classIds = new WeakMap<Function, symbol>()

/**
 * The key under which a class is registered. Two classes named "Api" get two keys, so
 * gateways from different packages never collide.
 */
export function serviceId (target: AbstractClass): symbol {
  let id = classIds.get(target)
  if (id === undefined) {
    id = Symbol(target.name || 'anonymous class')
    classIds.set(target, id)
  }
  return id
}

export function keyOf (id: ServiceId | symbol): string | symbol {
  return typeof id === 'function' ? serviceId(id) : id
}

export function describeKey (key: string | symbol): string {
  return typeof key === 'symbol' ? (key.description ?? 'anonymous class') : `'${key}'`
}

export function get<T> (id: ServiceId<T>): Reference<T> {
  return { [DEFINITION]: 'reference', id }
}

export function autowire<T> (target: Class<T>): AutowireDefinition<T> {
  return makeAutowire(target, undefined, new Map(), undefined)
}

// Immutable, so a subclass can extend a parent's definition without changing the parent's.
function makeAutowire<T> (target: Class<T>, positional: readonly unknown[] | undefined,
  named: ReadonlyMap<string, unknown>, dispose: ((instance: T) => unknown) | undefined): AutowireDefinition<T> {
  return {
    [DEFINITION]: 'autowire',
    target,
    positional,
    named,
    dispose,
    constructor (...args: unknown[]) {
      return makeAutowire(target, args, named, dispose)
    },
    constructorParameter (name: string, value: unknown) {
      return makeAutowire(target, positional, new Map(named).set(name, value), dispose)
    },
    disposer (fn: (instance: T) => unknown) {
      return makeAutowire(target, positional, named, fn)
    }
  }
}

/** A service built by a function of the container, for what autowire() cannot express. */
export function factory<T> (build: (container: ServiceContainer) => T): FactoryDefinition<T> {
  return makeFactory(build, undefined)
}

function makeFactory<T> (build: (container: ServiceContainer) => T, dispose: ((instance: T) => unknown) | undefined): FactoryDefinition<T> {
  return {
    [DEFINITION]: 'factory',
    build,
    dispose,
    disposer (fn: (instance: T) => unknown) {
      return makeFactory(build, fn)
    }
  }
}

export function isDefinition (value: unknown): value is Definition {
  return typeof value === 'object' && value !== null && DEFINITION in value
}

export function isReference (value: unknown): value is Reference {
  return isDefinition(value) && value[DEFINITION] === 'reference'
}

export function isAutowire (value: unknown): value is AutowireDefinition {
  return isDefinition(value) && value[DEFINITION] === 'autowire'
}
