import { inspect } from 'node:util'
import { isGatewayAware, isPrepend, type Action } from './actions/action.ts'
import { BaseGetStatus } from '../requests/get-status.ts'
import { ActionLookup } from './action-lookup.ts'
import { ownExtensionsOnly, readStatus, statusPlan, type StatusPlan } from './status-read.ts'
import { ExecuteSameRequestWithModelDetailsAction } from './actions/execute-same-request-with-model-details-action.ts'
import { ArrayObject } from '../model/array-object.ts'
import type { Generic } from '../requests/generic.ts'
import { humanifyRequest } from '../observability/humanify.ts'
import { PAYWIRE_ERR_NON_ERROR_THROWN, PAYWIRE_ERR_REQUEST_NOT_SUPPORTED } from '../errors.ts'
import { Context } from './extensions/context.ts'
import type { Extension } from './extensions/extension.ts'
import type { Logger } from '../observability/logger.ts'
import { Identity } from '../model/identity.ts'
import { Reply } from '../requests/replies.ts'
import { runInSpan, startActionSpan, startGatewayExecuteSpan } from '../observability/telemetry.ts'
import type { UnitOfWork } from '../commit/unit-of-work.ts'
import type { ReadCache } from '../storage/read-cache.ts'
import { chainFrame, runInFrame } from '../async-chain.ts'

export interface ExecuteOptions {
  /** Return a reply instead of throwing it. */
  catchReply?: boolean
  /**
   * Collect the models this execute saves instead of writing them when it ends; the caller
   * commits the unit (with its token invalidation and claim release) before answering. An
   * execute given a unit is a top-level one even inside another execute of this gateway: a
   * request that changes another payment (a webhook) commits on its own.
   */
  unit?: UnitOfWork
  /**
   * Records the caller read with the request's token (TokenClaim.reads, TokenRead.reads): the
   * storage extension loads the request's model from there instead of reading it again.
   * Only for a top-level execute.
   */
  reads?: ReadCache
}

export interface RequestNotSupportedError extends Error {
  code: 'PAYWIRE_ERR_REQUEST_NOT_SUPPORTED'
  request: unknown
}

type Hook = 'onPreExecute' | 'onExecute'

export class Gateway {
  #actions: Action[] = []
  #extensions: Extension[] = []
  // Hooks run on each action consulted during a lookup; undefined until one is added (1.x APIs), so 2.0 lookups skip them.
  #lookupHooks: Array<(action: Action) => void> | undefined
  #name: string | undefined
  #logger: Logger | undefined
  // Worked out once per request class, again only when actions or extensions are added.
  #lookup: ActionLookup | undefined
  #statusPlans = new Map<object, StatusPlan | null>()
  #ownExtensions: boolean | undefined
  // Whether the executed-action trace line is written, asked once per top-level execute.
  #tracing = new WeakMap<Context, Logger | null>()

  /** The name it is registered under (spans and log lines carry it); undefined for a gateway used on its own. */
  get name (): string | undefined {
    return this.#name
  }

  /**
   * Where its executed actions are logged (at trace) and the name its spans carry. The
   * registry calls it when it builds or is given the gateway; the first name stays.
   */
  observe (name: string, logger: Logger | undefined): this {
    this.#name ??= name
    this.#logger ??= logger
    return this
  }

  get actions (): readonly Action[] {
    return this.#actions
  }

  get extensions (): readonly Extension[] {
    return this.#extensions
  }

  /** Actions are consulted in order; `prepend` (or a PrependAction marker) puts one first. */
  addAction (action: Action, prepend = false): this {
    if (prepend || isPrepend(action)) this.#actions.unshift(action)
    else this.#actions.push(action)
    this.#lookup = undefined
    this.#statusPlans.clear()
    return this
  }

  addExtension (extension: Extension, prepend = false): this {
    if (prepend || isPrepend(extension)) this.#extensions.unshift(extension)
    else this.#extensions.push(extension)
    this.#statusPlans.clear()
    this.#ownExtensions = undefined
    return this
  }

  /**
   * Runs `hook` on every action the gateway consults while it looks for one that supports a
   * request, before asking it: what the 1.x style (legacy/, `addApi()`) plugs in to give
   * ApiAware actions their API, as Payum's gateway did.
   */
  onActionLookup (hook: (action: Action) => void): this {
    (this.#lookupHooks ??= []).push(hook)
    this.#statusPlans.clear()
    return this
  }

  /**
   * Runs the first action that supports the request. A reply thrown anywhere below is
   * returned when `catchReply` is set and thrown otherwise; extensions may replace or clear
   * it, and the same goes for errors.
   */
  async execute (request: unknown, options: ExecuteOptions = {}): Promise<Reply | undefined> {
    // The context of the execute() running, per async chain (async-chain.ts): a gateway is shared
    // by concurrent HTTP requests, so nesting cannot live on the gateway object (Payum keeps a
    // stack there, which interleaves under concurrency).
    const frame = chainFrame()
    const parent = options.unit === undefined ? frame.execution as Context | undefined : undefined
    const previous = parent !== undefined && parent.gateway === this ? [...parent.previous, parent] : []
    const context = previous.length === 0 ? new Context(this, request, previous, options.unit, options.reads) : new Context(this, request, previous)
    // With a unit, the caller (ExclusiveExecutor) holds the span: it also covers the commit.
    const span = previous.length === 0 && options.unit === undefined ? startGatewayExecuteSpan(this.#name, request) : undefined
    // A status read that nothing but Paywire's own actions and extensions could answer or watch: from the reader (status-read.ts).
    const plan = request instanceof BaseGetStatus ? this.#statusPlan(request) : undefined
    if (span === undefined) {
      if (plan === undefined || !await this.#readStatus(context, plan)) await runInFrame(frame.withExecution(context), () => this.#run(context))
    } else {
      await runInSpan(span, async () => {
        if (plan === undefined || !await this.#readStatus(context, plan)) await runInFrame(frame.withExecution(context), () => this.#run(context))
        if (context.exception !== undefined) throw context.exception
      })
    }

    if (context.exception !== undefined) throw context.exception
    if (context.reply !== undefined) {
      if (options.catchReply === true) return context.reply
      throw context.reply
    }
    return undefined
  }

  async #run (context: Context): Promise<void> {
    try {
      let called = this.#callExtensions('onPreExecute', context)
      if (called !== undefined) await called
      context.action ??= this.findActionSupported(context.request)
      called = this.#callExtensions('onExecute', context)
      if (called !== undefined) await called
      let action = context.action
      let span = startActionSpan(this.#name, action, context.request, context.previous.length)
      // A token becomes its stored model in this execute, not in a nested one, where nothing but
      // Paywire's own extensions could see the difference (no span, no trace line, no hook of the
      // application's): the storage extension loads it as it would have, and the lookup runs again.
      while (span === undefined && action.constructor === ExecuteSameRequestWithModelDetailsAction && this.#unwrapsInline(context)) {
        const request = context.request as Generic
        request.model = (request.model as { details: Identity }).details
        called = this.#callExtensions('onPreExecute', context)
        if (called !== undefined) await called
        context.action = action = this.findActionSupported(request)
        called = this.#callExtensions('onExecute', context)
        if (called !== undefined) await called
        span = startActionSpan(this.#name, action, request, context.previous.length)
      }
      if (isGatewayAware(action)) action.setGateway(this)
      const chosen = action
      if (span === undefined) await chosen.execute(context.request)
      else await runInSpan(span, async () => { await chosen.execute(context.request) })
    } catch (thrown) {
      if (thrown instanceof Reply) context.reply = thrown
      else context.exception = toError(thrown)
    }
    const traceLog = context.action === undefined ? undefined : this.#traceLogger(context.root)
    if (traceLog !== undefined) this.#logExecuted(traceLog, context)

    // Every extension gets its onPostExecute (the storage extension saves there), even after one failed.
    for (const extension of this.#extensions) {
      try {
        const result = extension.onPostExecute?.(context)
        if (result !== undefined) await result
      } catch (thrown) {
        if (thrown instanceof Reply) {
          context.exception = undefined
          context.reply = thrown
          continue
        }
        const error = toError(thrown)
        const earlier = context.exception ?? context.reply
        if (earlier !== undefined) chainCause(error, earlier)
        context.reply = undefined
        context.exception = error
      }
    }
  }

  /**
   * The logger the executed-action lines go to, or undefined when trace is off: asked once per
   * top-level execute, not per nested one. Not once per gateway: the level can differ per HTTP
   * request (a Fastify route's logLevel, a request logger of its own).
   */
  #traceLogger (root: Context): Logger | undefined {
    const logger = this.#logger
    if (logger === undefined) return undefined
    let kept = this.#tracing.get(root)
    if (kept === undefined) this.#tracing.set(root, kept = logger.isLevelEnabled?.('trace') !== false ? logger : null)
    return kept ?? undefined
  }

  #statusPlan (request: BaseGetStatus<unknown>): StatusPlan | undefined {
    const prototype = Object.getPrototypeOf(request) as object
    let plan = this.#statusPlans.get(prototype)
    if (plan === undefined) {
      // 1.x lookup hooks see every action a lookup consults: those gateways keep the executes.
      plan = this.#lookupHooks === undefined ? statusPlan(this.#actionLookup().candidates(request), this.#extensions) ?? null : null
      this.#statusPlans.set(prototype, plan)
    }
    return plan ?? undefined
  }

  /** A status read without executes (status-read.ts); false when the executes must run. */
  async #readStatus (context: Context, plan: StatusPlan): Promise<boolean> {
    const answered = await readStatus(context, plan)
    if (answered && this.#logger !== undefined && this.#logger.isLevelEnabled?.('trace') !== false) {
      const fields = { paywire: { gateway: this.#name, depth: context.previous.length + 1, action: 'StatusFromReaderAction', request: humanifyRequest(context.request), outcome: 'done' } }
      if (this.#logger.trace !== undefined) this.#logger.trace(fields, 'paywire: action executed')
      else this.#logger.debug(fields, 'paywire: action executed')
    }
    return answered
  }

  /** Whether a token's identity is loaded in the same execute (see #run): decided once for the extensions, then per request. */
  #unwrapsInline (context: Context): boolean {
    if (this.#lookupHooks !== undefined) return false
    this.#ownExtensions ??= ownExtensionsOnly(this.#extensions)
    if (!this.#ownExtensions || this.#traceLogger(context.root) !== undefined) return false
    const model = (context.request as Generic).model
    return typeof model === 'object' && model !== null && !(model instanceof ArrayObject) && (model as { details?: unknown }).details instanceof Identity
  }

  #actionLookup (): ActionLookup {
    return (this.#lookup ??= new ActionLookup([...this.#actions]))
  }

  #logExecuted (logger: Logger, context: Context): void {
    const code = (context.exception as { code?: unknown } | undefined)?.code
    const outcome = context.reply !== undefined
      ? `reply ${humanifyRequest(context.reply)}`
      : context.exception !== undefined ? `exception ${context.exception.name}${typeof code === 'string' ? ` [${code}]` : ''}` : 'done'
    const fields = { paywire: { gateway: this.#name, depth: context.previous.length + 1, action: context.action?.constructor.name, request: humanifyRequest(context.request), outcome } }
    if (logger.trace !== undefined) logger.trace(fields, 'paywire: action executed')
    else logger.debug(fields, 'paywire: action executed')
  }

  findActionSupported (request: unknown): Action {
    const hooks = this.#lookupHooks
    if (hooks === undefined) {
      const action = this.#actionLookup().find(request)
      if (action !== undefined) return action
      throw createRequestNotSupported(request)
    }
    for (const action of this.#actions) {
      // As in Payum, also actions that turn out not to support the request go through the hooks.
      for (const hook of hooks) hook(action)
      if (action.supports(request)) return action
    }
    throw createRequestNotSupported(request)
  }

  /**
   * Runs `hook` on every extension in order; a promise only once one returned a promise (the
   * rest then wait for it), so an execute whose extensions answer at once makes none.
   */
  #callExtensions (hook: Hook, context: Context, from = 0): Promise<void> | undefined {
    const extensions = this.#extensions
    for (let at = from; at < extensions.length; at++) {
      const result = (extensions[at] as Extension)[hook]?.(context)
      if (result !== undefined) return Promise.resolve(result).then(() => this.#callExtensions(hook, context, at + 1))
    }
    return undefined
  }
}

function toError (thrown: unknown): Error {
  if (thrown instanceof Error) return thrown
  const shown = typeof thrown === 'object' && thrown !== null
    ? `an instance of ${thrown.constructor?.name || 'Object'}`
    : inspect(thrown, { depth: 0 }).slice(0, 80)
  return new PAYWIRE_ERR_NON_ERROR_THROWN(shown, { cause: thrown })
}

/**
 * When an extension fails while handling an earlier error, keep the earlier one reachable:
 * it becomes the innermost cause of the new error, unless it is already in the chain.
 */
function chainCause (error: Error, original: unknown): void {
  let current: unknown = error
  const seen = new Set<unknown>()
  while (current instanceof Error && !seen.has(current)) {
    if (current === original) return
    seen.add(current)
    if (current.cause === undefined) {
      current.cause = original
      return
    }
    if (!(current.cause instanceof Error)) {
      // A non-Error cause cannot carry one: keep both reachable.
      current.cause = new AggregateError([current.cause, original], 'Thrown while handling an earlier failure')
      return
    }
    current = current.cause
  }
}

function createRequestNotSupported (request: unknown): RequestNotSupportedError {
  const hints: string[] = []
  const model = (request as { model?: unknown } | null)?.model
  if (model instanceof Identity) {
    hints.push(
      `Make sure a storage for "${model.modelName}" is registered (addStorage or addDefaultStorages) so the storage extension can load it.`,
      `Make sure that storage's find() returns a model for id "${model.id}".`
    )
  }
  hints.push(
    'Make sure the gateway supports this request: one of its actions must return true from supports().',
    'If it should, this may be a bug in the gateway.'
  )
  const error = new PAYWIRE_ERR_REQUEST_NOT_SUPPORTED(humanifyRequest(request), hints.join(' ')) as RequestNotSupportedError
  error.request = request
  return error
}
