import { AsyncLocalStorage } from 'node:async_hooks'

/*
 * Everything Paywire keeps per async chain, in one AsyncLocalStorage. On Node 20 async_hooks
 * puts two properties (its ids) on every promise the process creates, and each enabled
 * AsyncLocalStorage one more; V8 gives a promise's own properties room for three and copies
 * them into a larger store at the fourth. A store per concern (HTTP request, gateway execute)
 * made every promise of a payment request pay that copy (a demo flow allocated ~16 KB more on
 * Node 20; its instructions barely move). A nested run copies the frame (four fields, one shape).
 */

/** The origin an HTTP request came for (the core plugin's trustRequestBaseUrl). */
export interface RequestOrigin {
  /** Which registration of the plugin set it: another one's requests are none of its own. */
  readonly source: object
  readonly origin: string
  readonly trusted: boolean
}

/** A recordDeprecations() call in progress. */
export interface DeprecationRecorder {
  readonly codes: string[] | Set<string>
  /** Closed once `run` returned (or its promise settled): later work of the same chain is not its own. */
  open: boolean
}

/*
 * The ground floor of the engine cannot name the types of the areas above it (requests/,
 * kernel/): the slots they own are plain objects here, and each owner reads its own back as
 * its type (http-request-context.ts, gateway.ts). Nothing else reads them.
 */
export class ChainFrame {
  /** The HTTP request a web framework is serving (runWithHttpRequest): an HttpRequestData. */
  readonly httpRequest: object | undefined
  readonly origin: RequestOrigin | undefined
  /** The gateway execute() running, a kernel Context: nested executes find their parent here. */
  readonly execution: object | undefined
  /** Innermost last. */
  readonly recorders: readonly DeprecationRecorder[] | undefined

  constructor (httpRequest: object | undefined, origin: RequestOrigin | undefined, execution: object | undefined, recorders: readonly DeprecationRecorder[] | undefined) {
    this.httpRequest = httpRequest
    this.origin = origin
    this.execution = execution
    this.recorders = recorders
  }

  withHttpRequest (httpRequest: object): ChainFrame {
    return new ChainFrame(httpRequest, this.origin, this.execution, this.recorders)
  }

  withOrigin (origin: RequestOrigin): ChainFrame {
    return new ChainFrame(this.httpRequest, origin, this.execution, this.recorders)
  }

  withExecution (execution: object): ChainFrame {
    return new ChainFrame(this.httpRequest, this.origin, execution, this.recorders)
  }

  withRecorders (recorders: readonly DeprecationRecorder[]): ChainFrame {
    return new ChainFrame(this.httpRequest, this.origin, this.execution, recorders)
  }
}

const frames = new AsyncLocalStorage<ChainFrame>()
const NONE = new ChainFrame(undefined, undefined, undefined, undefined)

/** The frame of the running async chain; an empty one outside every run. */
export function chainFrame (): ChainFrame {
  return frames.getStore() ?? NONE
}

/** Runs `fn` (and every async operation it starts) in `frame`. */
export function runInFrame<T> (frame: ChainFrame, fn: () => T): T {
  return frames.run(frame, fn)
}
