import type { Action } from './actions/action.ts'

/*
 * Which actions could ever support a request of one class, worked out once per class.
 *
 * An action's supports() is pure and looks at nothing but the request (action.ts). Asked about
 * a stand-in of the class that records every look at it, an action that says no without
 * reading anything of the request (`request instanceof Capture && …` for a GetHumanStatus)
 * gives the same no for every request of that class: it is left out of the class's list. An
 * action that reads the request (its model, its fields) or says yes stays in, and is asked
 * about each request as before, so actions whose answer depends on the model keep working.
 */

const probeHandler = (touched: { value: boolean }): ProxyHandler<object> => {
  const touch = (): undefined => { touched.value = true }
  // Only the prototype chain (instanceof) may be read without counting as a look at the request.
  return {
    get: touch,
    has: () => { touched.value = true; return false },
    getOwnPropertyDescriptor: touch,
    ownKeys: () => { touched.value = true; return [] },
    set: () => { touched.value = true; return true },
    defineProperty: () => { touched.value = true; return true },
    deleteProperty: () => { touched.value = true; return true },
    isExtensible: () => { touched.value = true; return true },
    preventExtensions: () => { touched.value = true; return false }
  }
}

/** False only when the action can never support a request with this prototype. */
function mayAccept (action: Action, prototype: object | null): boolean {
  const touched = { value: false }
  const probe = new Proxy(Object.create(prototype) as object, probeHandler(touched))
  let answer: boolean
  try {
    answer = action.supports(probe)
  } catch {
    return true
  }
  return answer || touched.value
}

const UNKNOWN = 0
const SKIP = 1
const ASK = 2

interface ClassEntry {
  /** Per action: not probed yet, never supports the class, or asked about each request. */
  readonly states: Uint8Array
  probed: number
  /** The actions to ask, once every one is probed. */
  list: readonly Action[] | undefined
}

/**
 * The actions to ask about a request, in the gateway's order; worked out per request class,
 * kept until the actions change. An action is probed when a lookup first reaches it, so the
 * actions after the one that answers are still never asked.
 */
export class ActionLookup {
  readonly #actions: readonly Action[]
  readonly #byPrototype = new Map<object | null, ClassEntry>()

  constructor (actions: readonly Action[]) {
    this.#actions = actions
  }

  /** The first action that supports the request, or undefined. */
  find (request: unknown): Action | undefined {
    if (typeof request !== 'object' || request === null) return this.#actions.find((action) => action.supports(request))
    const prototype = Object.getPrototypeOf(request) as object | null
    const entry = this.#entry(prototype)
    if (entry.list !== undefined) {
      for (const action of entry.list) if (action.supports(request)) return action
      return undefined
    }
    for (let index = 0; index < this.#actions.length; index++) {
      const action = this.#actions[index] as Action
      if (this.#state(entry, index, prototype) === ASK && action.supports(request)) return action
    }
    return undefined
  }

  /** Every action that could support a request of this one's class. */
  candidates (request: object): readonly Action[] {
    const prototype = Object.getPrototypeOf(request) as object | null
    const entry = this.#entry(prototype)
    for (let index = 0; entry.list === undefined; index++) this.#state(entry, index, prototype)
    return entry.list as readonly Action[]
  }

  #entry (prototype: object | null): ClassEntry {
    let entry = this.#byPrototype.get(prototype)
    if (entry === undefined) {
      entry = { states: new Uint8Array(this.#actions.length), probed: 0, list: this.#actions.length === 0 ? [] : undefined }
      this.#byPrototype.set(prototype, entry)
    }
    return entry
  }

  #state (entry: ClassEntry, index: number, prototype: object | null): number {
    let state = entry.states[index] as number
    if (state !== UNKNOWN) return state
    state = mayAccept(this.#actions[index] as Action, prototype) ? ASK : SKIP
    entry.states[index] = state
    if (++entry.probed === this.#actions.length) entry.list = this.#actions.filter((_, i) => entry.states[i] === ASK)
    return state
  }
}
