import type { Gateway } from '../gateway.ts'

/**
 * An action handles one kind of request. `supports` must be synchronous and pure: the
 * gateway asks the actions in order and runs the first that says yes, so the answer may
 * depend only on the request (its class and its model), never on I/O or the action's own
 * changing state. An action that says no to a request without reading anything of it but its
 * class (`request instanceof Capture && …`) is not asked about that class again.
 */
export interface Action {
  supports (request: unknown): boolean
  execute (request: any): Promise<void> | void
}

/** Actions that run sub-requests get the gateway injected before they execute. */
export interface GatewayAware {
  setGateway (gateway: Gateway): void
}

/**
 * Marker: an action (or extension) with `prepend: true` is consulted before all others,
 * whatever its position in getActions()/getExtensions().
 */
export interface PrependAction {
  readonly prepend: true
}

export function isPrepend (value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { prepend?: unknown }).prepend === true
}

export function isGatewayAware (value: unknown): value is GatewayAware {
  return typeof (value as GatewayAware | null)?.setGateway === 'function'
}

export function isAction (value: unknown): value is Action {
  return typeof (value as Action | null)?.supports === 'function' &&
    typeof (value as Action).execute === 'function'
}

/** Base for actions that execute sub-requests through their gateway. */
export abstract class GatewayAwareAction implements Action, GatewayAware {
  #gateway: Gateway | undefined

  setGateway (gateway: Gateway): void {
    this.#gateway = gateway
  }

  protected get gateway (): Gateway {
    if (this.#gateway === undefined) {
      throw new TypeError(`${this.constructor.name} was executed outside a gateway: add it with gateway.addAction().`)
    }
    return this.#gateway
  }

  abstract supports (request: unknown): boolean
  abstract execute (request: any): Promise<void> | void
}
