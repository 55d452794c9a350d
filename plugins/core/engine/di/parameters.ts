import { PAYWIRE_ERR_INVALID_DEFINITION } from '../errors.ts'

/*
 * Constructor parameter names, as a class declares them. TypeScript types are gone at run
 * time, and compilers rename parameters (esbuild makes `api` `api2` in a module that also
 * has a top-level `api`; a minifier makes it `n`), so names are never read from a class's
 * source text: the class lists them, in order, in a static `inject` property, and
 * constructorParameter('api', ...) maps a name to its position through that list:
 *
 *   class CaptureAction implements Action {
 *     static readonly inject = ['api']
 *     readonly api: AcmeApi
 *     constructor (api: AcmeApi) { this.api = api }
 *   }
 *
 * '...name' declares a rest parameter. A subclass inherits its parent's list; one whose
 * constructor differs declares its own. Without a list, positional wiring (constructor(...))
 * still works, and Function.length (how many parameters come before the first one with a
 * default, a language fact that survives compilers) tells how many need a value.
 */

export const INJECT_PROPERTY = 'inject'

export interface Parameter {
  /** Undefined when the class declares no names. */
  name: string | undefined
  /** Whether building fails when it gets no value: it comes before the first parameter with a default. */
  required: boolean
  rest: boolean
}

export interface ConstructorParameters {
  /** Whether the class (or a parent) declares the names in a static `inject` list. */
  declared: boolean
  parameters: Parameter[]
}

const cache = new WeakMap<Function, ConstructorParameters>()

export function constructorParameters (target: Function): ConstructorParameters {
  let parameters = cache.get(target)
  if (parameters === undefined) {
    parameters = readParameters(target)
    cache.set(target, parameters)
  }
  return parameters
}

/** The class in `target`'s chain that declares the list itself. */
function declaringClass (target: Function): Function | undefined {
  for (let current: unknown = target; typeof current === 'function' && current !== Function.prototype; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, INJECT_PROPERTY)) return current
  }
  return undefined
}

function readParameters (target: Function): ConstructorParameters {
  const owner = declaringClass(target)
  if (owner === undefined) {
    return { declared: false, parameters: Array.from({ length: target.length }, () => ({ name: undefined, required: true, rest: false })) }
  }
  const names = validNames(target, (owner as unknown as Record<string, unknown>)[INJECT_PROPERTY])
  if (target.length > names.length) {
    const inherited = owner === target ? '' : ` (inherited from ${owner.name || 'its parent'}: a subclass whose constructor differs declares its own)`
    throw new PAYWIRE_ERR_INVALID_DEFINITION(target.name, `static ${INJECT_PROPERTY} names ${names.length} constructor parameter(s)${inherited}, but the constructor takes at least ${target.length}: list every parameter, in order.`)
  }
  return {
    declared: true,
    parameters: names.map((name, index) => {
      const rest = name.startsWith('...')
      return { name: rest ? name.slice(3) : name, required: !rest && index < owner.length, rest }
    })
  }
}

function validNames (target: Function, value: unknown): string[] {
  const problem = (text: string): never => {
    throw new PAYWIRE_ERR_INVALID_DEFINITION(target.name, `static ${INJECT_PROPERTY} ${text}.`)
  }
  if (!Array.isArray(value)) problem('must be the list of constructor parameter names, in order (static inject = [\'api\'])')
  const names = value as unknown[]
  names.forEach((name, index) => {
    if (typeof name !== 'string' || !/^(\.\.\.)?[A-Za-z_$][\w$]*$/.test(name)) return problem(`holds ${JSON.stringify(name) ?? String(name)}, which is not a parameter name`)
    if (name.startsWith('...') && index !== names.length - 1) problem(`declares the rest parameter ${name} before the last position`)
    if (names.indexOf(name) !== index) problem(`names ${name} twice`)
  })
  return names as string[]
}
