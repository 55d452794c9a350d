import { asValue, createContainer, InjectionMode, Lifetime, type AwilixContainer, type Resolver } from 'awilix'
import {
  PAYWIRE_ERR_ACTION_API_NOT_INJECTED,
  PAYWIRE_ERR_CIRCULAR_DEPENDENCY,
  PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED,
  PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED,
  PAYWIRE_ERR_INVALID_DEFINITION,
  PAYWIRE_ERR_SERVICE_NOT_FOUND
} from '../errors.ts'
import {
  describeKey, isDefinition, isReference, keyOf,
  type AutowireDefinition, type ContainerConfiguration, type Definition, type ServiceId
} from './definitions.ts'
import { distance } from '../suggest.ts'
import { constructorParameters } from './parameters.ts'

type Key = string | symbol

/*
 * Resolution is synchronous, so one stack serves every container: it names the chain that
 * led to a failure (a cycle, a missing id) in the error message.
 */
const resolving: Key[] = []
const wrappers = new WeakMap<AwilixContainer, ServiceContainer>()

/**
 * Paywire's view of an Awilix container: ids are class references or strings, definitions
 * come from configureContainer(), errors carry PAYWIRE_ERR codes that say how to fix them.
 * Every definition is SCOPED: each gateway scope builds and caches its own instances.
 */
export class ServiceContainer {
  readonly awilix: AwilixContainer

  private constructor (awilix: AwilixContainer) {
    this.awilix = awilix
  }

  /** A fresh root container (never Awilix's module-global one, which leaks between apps). */
  static create (): ServiceContainer {
    return ServiceContainer.of(createContainer({ injectionMode: InjectionMode.PROXY, strict: true }))
  }

  static of (awilix: AwilixContainer): ServiceContainer {
    let wrapper = wrappers.get(awilix)
    if (wrapper === undefined) {
      wrapper = new ServiceContainer(awilix)
      wrappers.set(awilix, wrapper)
    }
    return wrapper
  }

  register (configuration: ContainerConfiguration): this {
    const registrations: Record<Key, Resolver<unknown>> = {}
    for (const key of Reflect.ownKeys(configuration)) {
      const value = configuration[key]
      registrations[key] = isDefinition(value) ? toResolver(value) : asValue(value)
    }
    this.awilix.register(registrations)
    return this
  }

  set (id: ServiceId, value: unknown): this {
    this.awilix.register(keyOf(id), asValue(value))
    return this
  }

  has (id: ServiceId): boolean {
    return this.awilix.hasRegistration(keyOf(id))
  }

  get<T> (id: ServiceId<T>): T {
    const key = keyOf(id)
    if (resolving.includes(key)) {
      const cycle = [...resolving.slice(resolving.indexOf(key)), key].map(describeKey).join(' -> ')
      throw new PAYWIRE_ERR_CIRCULAR_DEPENDENCY(cycle)
    }
    if (!this.awilix.hasRegistration(key)) throw this.#notFound(key)
    resolving.push(key)
    try {
      return this.awilix.resolve<T>(key)
    } finally {
      resolving.pop()
    }
  }

  createScope (): ServiceContainer {
    return ServiceContainer.of(this.awilix.createScope())
  }

  /** Runs the disposers of what this container (not its scopes) built. */
  async dispose (): Promise<void> {
    await this.awilix.dispose()
  }

  keys (): Key[] {
    return Reflect.ownKeys(this.awilix.registrations)
  }

  #notFound (key: Key): Error {
    const requester = resolving.length > 0 ? ` (needed by ${describeKey(resolving[resolving.length - 1] as Key)})` : ''
    const keys = this.keys()
    let hint = ''
    const sameNamedClass = typeof key === 'string' ? keys.find((candidate) => typeof candidate === 'symbol' && candidate.description === key) : undefined
    if (sameNamedClass !== undefined) {
      hint = ` Use the class reference get(${String(key)}) instead of the string '${String(key)}': classes are registered by reference, so two classes with one name never collide.`
    } else {
      const near = nearest(key, keys)
      if (near.length > 0) hint = ` Did you mean ${near.map(describeKey).join(', ')}?`
      if (typeof key === 'string') hint += ' Services are registered under their class: prefer get(TheClass) to a string id.'
    }
    return new PAYWIRE_ERR_SERVICE_NOT_FOUND(describeKey(key), requester, hint)
  }
}

function toResolver (definition: Definition): Resolver<unknown> {
  const resolver: Resolver<unknown> & { dispose?: (value: unknown) => unknown } = {
    lifetime: Lifetime.SCOPED,
    resolve: (awilix) => resolveDefinition(definition, ServiceContainer.of(awilix))
  }
  if (!isReference(definition) && definition.dispose !== undefined) resolver.dispose = definition.dispose as (value: unknown) => unknown
  return resolver
}

/** A value in a definition: references are resolved, nested definitions built, literals kept. */
export function resolveDefinition (value: unknown, container: ServiceContainer): unknown {
  if (!isDefinition(value)) return value
  if (isReference(value)) return container.get(value.id)
  if ('build' in value) return value.build(container)
  return buildAutowired(value, container)
}

function buildAutowired (definition: AutowireDefinition, container: ServiceContainer): unknown {
  const { target, positional, named } = definition
  const { declared, parameters } = constructorParameters(target)
  for (const name of named.keys()) {
    if (!declared) throw new PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED(name, target.name, name, target.name)
    const parameter = parameters.find((candidate) => candidate.name === name)
    if (parameter === undefined) {
      const known = parameters.map((candidate) => candidate.name).join(', ') || 'none'
      throw new PAYWIRE_ERR_INVALID_DEFINITION(target.name, `constructorParameter('${name}') does not match a constructor parameter (parameters: ${known}).`)
    }
    // The value would otherwise be dropped without a word: rest parameters are skipped below.
    if (parameter.rest) {
      throw new PAYWIRE_ERR_INVALID_DEFINITION(target.name, `constructorParameter('${name}') names a rest parameter: pass its values with constructor(...).`)
    }
  }
  const args = (positional ?? []).map((value) => resolveDefinition(value, container))
  parameters.forEach((parameter, index) => {
    if (parameter.rest) return
    if (parameter.name !== undefined && named.has(parameter.name)) {
      args[index] = resolveDefinition(named.get(parameter.name), container)
    } else if (index >= args.length && parameter.required) {
      throw unresolvedParameter(target, parameter.name, index)
    }
  })
  const Target = target
  return new Target(...args)
}

function unresolvedParameter (target: Function, name: string | undefined, index: number): Error {
  if (name === undefined) {
    return new PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED(target.name, `#${index + 1}`,
      'Pass it with constructor(...), or declare the constructor\'s parameter names (static inject = [\'name\', ...]) to wire it with constructorParameter(\'name\', get(<id>)).')
  }
  const prototype = target.prototype as Record<string, unknown>
  const isAction = typeof prototype.supports === 'function' && typeof prototype.execute === 'function'
  if (isAction && /api/i.test(name)) return new PAYWIRE_ERR_ACTION_API_NOT_INJECTED(target.name, name, name)
  return new PAYWIRE_ERR_CONSTRUCTOR_PARAMETER_UNRESOLVED(target.name, `"${name}"`,
    `Wire it with constructorParameter('${name}', get(<id>)) or constructor(...) in its autowire() definition.`)
}

function nearest (key: Key, keys: Key[]): Key[] {
  const wanted = describeKey(key).replace(/'/g, '').toLowerCase()
  return keys
    .map((candidate) => ({ candidate, distance: distance(wanted, describeKey(candidate).replace(/'/g, '').toLowerCase()) }))
    .filter(({ distance: d }) => d <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, 3)
    .map(({ candidate }) => candidate)
}
