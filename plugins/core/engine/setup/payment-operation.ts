import { kindOf } from '../errors-kind.ts'
import { PAYWIRE_ERR_OPERATION_NOT_ALLOWED, PAYWIRE_ERR_UNKNOWN_GATEWAY } from '../errors.ts'
import type { Gateway } from '../kernel/gateway.ts'
import { StatusFromReaderAction } from '../kernel/actions/status-from-reader-action.ts'
import { ArrayObject } from '../model/array-object.ts'
import { Payment } from '../model/payment.ts'
import type { Generic } from '../requests/generic.ts'
import { GetHumanStatus, type HumanStatusValue, type PaymentAmounts } from '../requests/get-status.ts'
import type { PaymentState } from '../requests/payment-state.ts'
import type { ExclusiveResult } from '../kernel/exclusive-executor.ts'
import type { Paywire } from './paywire.ts'

/*
 * The operator's operations on a stored payment (refund, cancel, capture an authorization,
 * sync), run the one way every back office of Paywire runs them (the GraphQL mutations and
 * the operator console): the payment claimed first, its gateway, capability and status
 * checked under the claim, then the gateway run as its only writer (ExclusiveExecutor) with
 * that claim, whose commit releases it. What each front end answers (typed GraphQL errors,
 * HTML pages) stays with it: the errors it needs are passed in.
 */

/** What an operation is: the engine request it runs (as messages name it) and the statuses it may start from. */
export interface PaymentOperationSpec {
  request: string
  /** Statuses the operation may start from; others get PAYWIRE_ERR_OPERATION_NOT_ALLOWED before the gateway runs. Omitted: any. */
  from?: readonly HumanStatusValue[]
  /** True: a run that changed nothing is an answer (Sync found nothing new), not PAYWIRE_ERR_OPERATION_NOT_ALLOWED. */
  unchangedIsFine?: boolean
}

/**
 * The operations back offices run, with the statuses each may start from; others get
 * PAYWIRE_ERR_OPERATION_NOT_ALLOWED without reaching the gateway.
 */
export const PAYMENT_OPERATIONS = {
  // A partially refunded payment may be refunded again, up to what remains.
  refund: { request: 'Refund', from: ['captured', 'refunded'] },
  // An authorization is voided; a payment not paid yet is called off.
  cancel: { request: 'Cancel', from: ['new', 'pending', 'authorized'] },
  // An authorization's money taken (all of it).
  capture: { request: 'Capture', from: ['authorized'] },
  // The provider asked what happened; finding nothing new is an answer too.
  sync: { request: 'Sync', unchangedIsFine: true }
} as const satisfies Record<string, PaymentOperationSpec>

/** Where a failure happened, for the front end to describe it. */
export interface PaymentOperationContext {
  gateway?: string
  status?: HumanStatusValue
}

export interface PaymentOperationErrors {
  /** No payment has the id. */
  notFound: () => Error
  /** The gateway has no action for the request, or needs the buyer's browser for it. */
  notSupported: (gatewayName: string, request: string) => Error
  /** Adds what the front end says about an error raised after the claim; returns what to throw. */
  describe?: (error: unknown, context: PaymentOperationContext) => unknown
}

export interface PaymentOperationOutcome {
  /** The payment as committed (or as read, when nothing changed). */
  payment: Payment
  before: HumanStatusValue
  after: HumanStatusValue
  changed: boolean
}

/**
 * A status read never writes: the gateway reads a copy of the details, not the payment (the
 * storage extension saves every payment a gateway touched).
 */
export async function readPaymentStatus (paywire: Paywire, payment: Payment): Promise<{ status: HumanStatusValue, amounts?: PaymentAmounts }> {
  if (!paywire.hasGateway(payment.gatewayName)) return { status: 'unknown' }
  const request = new GetHumanStatus(new ArrayObject(structuredClone(payment.details)))
  await paywire.getGateway(payment.gatewayName).execute(request)
  return { status: request.value, amounts: request.amounts }
}

/** The payment as its gateway's PaymentStateReader reads it (ids, disputes, expiry…); undefined without a reader. */
export function readPaymentState (paywire: Paywire, payment: Payment): PaymentState | undefined {
  if (!paywire.hasGateway(payment.gatewayName)) return undefined
  const action = paywire.getGateway(payment.gatewayName).actions.find((candidate) => candidate instanceof StatusFromReaderAction)
  return action?.reader?.read({ details: structuredClone(payment.details) })
}

/** True when one of the gateway's actions supports the request (actions' supports() is pure and synchronous). */
export function gatewaySupports (gateway: Gateway, request: unknown): boolean {
  return gateway.actions.some((action) => action.supports(request))
}

/**
 * Runs `createRequest` on the stored payment `id` as its only writer, after the checks above.
 * A gateway that changed nothing did nothing (Payum gateways ignore requests their status rules
 * out): PAYWIRE_ERR_OPERATION_NOT_ALLOWED, unless the spec says that is an answer.
 */
export async function runPaymentOperation (paywire: Paywire, id: string, spec: PaymentOperationSpec,
  createRequest: (model: unknown) => Generic, errors: PaymentOperationErrors): Promise<PaymentOperationOutcome> {
  const storage = paywire.getStorage(Payment)
  const executor = paywire.getExclusiveExecutor()
  const tokens = paywire.getTokenStorage()
  const found = await storage.find(id)
  if (found === null) throw errors.notFound()
  // Claimed before the checks, so they read what the gateway will run on.
  const claim = await tokens.claimModel(storage.identify(found), executor.claimTtlMs)
  const context: PaymentOperationContext = {}
  const describe = (error: unknown): unknown => errors.describe === undefined ? error : errors.describe(error, { ...context })
  let result: ExclusiveResult<Generic>
  let payment: Payment
  try {
    payment = await storage.find(id) ?? found
    const { gatewayName } = payment
    context.gateway = gatewayName
    if (!paywire.hasGateway(gatewayName)) throw describe(new PAYWIRE_ERR_UNKNOWN_GATEWAY(gatewayName, ''))
    const gateway = paywire.getGateway(gatewayName)
    if (!gatewaySupports(gateway, createRequest(new ArrayObject(structuredClone(payment.details))))) {
      throw describe(errors.notSupported(gatewayName, spec.request))
    }
    const { status: before } = await readPaymentStatus(paywire, payment)
    context.status = before
    if (spec.from !== undefined && !spec.from.includes(before)) throw describe(new PAYWIRE_ERR_OPERATION_NOT_ALLOWED(spec.request, before))
    try {
      result = await executor.execute(gateway, payment, createRequest, { claim })
    } catch (error) {
      throw describe(error)
    }
    // A gateway that needs the buyer's browser (a redirect) cannot do this from the back office.
    if (result.reply !== undefined) throw describe(errors.notSupported(gatewayName, spec.request))
    if (!result.changed && spec.unchangedIsFine !== true) throw describe(new PAYWIRE_ERR_OPERATION_NOT_ALLOWED(spec.request, before))
  } catch (error) {
    // The executor releases the claim itself; this is for the checks that failed before it ran.
    // Not awaited when the storage failed: the answer would wait out its timeout once more.
    const released = tokens.releaseClaim(claim).catch(() => {})
    if (kindOf(error) !== 'unavailable') await released
    throw error
  }
  const changed = result.changed ? result.request.firstModel as Payment : await storage.find(id) ?? payment
  const { status: after } = await readPaymentStatus(paywire, changed)
  return { payment: changed, before: context.status, after, changed: result.changed }
}
