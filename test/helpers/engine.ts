/*
 * Small building blocks shared by the engine and offline-gateway tests: actions made from
 * a function, extensions that record what they see, a storage that counts its writes.
 */
import {
  GatewayAwareAction, MemoryStorage, type Action, type Context, type Extension, type Gateway
} from '../../plugins/core/engine/index.ts'

type RequestClass<R> = abstract new (...args: any[]) => R

/** An action for one request class; `runs` lists the requests it executed. */
export class FnAction<R> implements Action {
  readonly Request: RequestClass<R>
  readonly run: (request: R) => unknown
  readonly runs: R[] = []
  supportsCalls = 0

  constructor (Request: RequestClass<R>, run: (request: R) => unknown = () => {}) {
    this.Request = Request
    this.run = run
  }

  supports (request: unknown): boolean {
    this.supportsCalls++
    return request instanceof this.Request
  }

  async execute (request: R): Promise<void> {
    this.runs.push(request)
    await this.run(request)
  }
}

/** Like FnAction, with the gateway (injected by Gateway.execute) passed to the function. */
export class FnGatewayAction<R> extends GatewayAwareAction {
  readonly Request: RequestClass<R>
  readonly run: (request: R, gateway: Gateway) => unknown

  constructor (Request: RequestClass<R>, run: (request: R, gateway: Gateway) => unknown) {
    super()
    this.Request = Request
    this.run = run
  }

  supports (request: unknown): boolean {
    return request instanceof this.Request
  }

  async execute (request: R): Promise<void> {
    await this.run(request, this.gateway)
  }
}

export type HookName = 'onPreExecute' | 'onExecute' | 'onPostExecute'

/** Writes "<name>.<hook>" to a shared log, then runs an optional hook body. */
export function recordingExtension (name: string, log: string[],
  hooks: Partial<Record<HookName, (context: Context) => unknown>> = {}): Extension {
  const hook = (hookName: HookName) => async (context: Context) => {
    log.push(`${name}.${hookName}`)
    await hooks[hookName]?.(context)
  }
  return { onPreExecute: hook('onPreExecute'), onExecute: hook('onExecute'), onPostExecute: hook('onPostExecute') }
}

/** A MemoryStorage that counts its update() calls. */
export class CountingStorage<T extends object> extends MemoryStorage<T> {
  updates = 0

  override async update (model: T): Promise<void> {
    this.updates++
    await super.update(model)
  }
}

/** A clock tests move by hand (milliseconds). */
export function manualClock (start = 1_000_000): { now: () => number, advance: (ms: number) => void, set: (ms: number) => void } {
  let current = start
  return {
    now: () => current,
    advance: (ms) => { current += ms },
    set: (ms) => { current = ms }
  }
}

/** Lets other pending promise callbacks run, so concurrent executes interleave. */
export function tick (): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** The value a promise rejects with (replies are not Errors, so t.rejects cannot match them by identity). */
export async function rejection (promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(
    () => { throw new Error('expected a rejection, the promise resolved') },
    (thrown: unknown) => thrown
  )
}
