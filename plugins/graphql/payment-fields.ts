import {
  ArrayObject, Authorize, Cancel, Capture, GetHumanStatus, LocateNotification, Notify, Refund, Sync, findCurrency, formatMinorUnits, isMinorUnits,
  type Gateway, type HumanStatusValue, type Payment, type PaymentAmounts, type Paywire
} from '../core/engine/index.ts'
import { publicDetails } from '../core/done.ts'
import type { Context } from './context.ts'
import { logOf } from './context.ts'

/**
 * The payment's status as its gateway reads it. The gateway gets a copy of the details,
 * not the payment: a status read must never write (the storage extension saves every
 * payment a gateway touched, which would bump updatedAt on each read, cost a write per
 * listed payment and could overwrite a concurrent capture with older data).
 */
export async function readStatus (paywire: Paywire, payment: Payment): Promise<HumanStatusValue> {
  return (await statusRequest(paywire, payment))?.value ?? 'unknown'
}

/*
 * One gateway read per payment object, shared by its status and amount fields. Objects come
 * from the request's loader, and a payment that changed is a new object, so none is stale.
 */
const statusReads = new WeakMap<Payment, Promise<GetHumanStatus | undefined>>()

function statusRequest (paywire: Paywire, payment: Payment): Promise<GetHumanStatus | undefined> {
  let read = statusReads.get(payment)
  if (read === undefined) {
    read = (async () => {
      if (!paywire.hasGateway(payment.gatewayName)) return undefined
      const status = new GetHumanStatus(new ArrayObject(structuredClone(payment.details)))
      await paywire.getGateway(payment.gatewayName).execute(status)
      return status
    })()
    statusReads.set(payment, read)
  }
  return read
}

/** How much moved (minor units), when the payment's gateway tells; undefined otherwise. */
export async function readAmounts (paywire: Paywire, payment: Payment): Promise<PaymentAmounts | undefined> {
  return (await statusRequest(paywire, payment))?.amounts
}

export function graphqlStatus (status: HumanStatusValue): string {
  return status.toUpperCase()
}

function decimal (payment: { totalAmount: number, currencyCode: string }): string | null {
  if (!isMinorUnits(payment.totalAmount) || findCurrency(payment.currencyCode) === undefined) return null
  return formatMinorUnits(payment.totalAmount, payment.currencyCode)
}

function localDetails (payment: Payment): Record<string, unknown> {
  const local = payment.details.local
  return local !== null && typeof local === 'object' && !Array.isArray(local) ? publicDetails(local) : {}
}

/** A request of each kind the gateway may be asked to run server-side, on the given details. */
export const PROBES = {
  capture: (details: ArrayObject) => new Capture(details),
  authorize: (details: ArrayObject) => new Authorize(details),
  refund: (details: ArrayObject) => new Refund(details),
  cancel: (details: ArrayObject) => new Cancel(details),
  sync: (details: ArrayObject) => new Sync(details),
  notify: (details: ArrayObject) => new Notify(details)
} as const

export type Capability = keyof typeof PROBES

/** True when one of the gateway's actions supports the request (actions' supports() is pure and synchronous). */
export function supports (gateway: Gateway, request: unknown): boolean {
  return gateway.actions.some((action) => action.supports(request))
}

export function capabilities (gateway: Gateway): Record<Capability, boolean> {
  const answer = {} as Record<Capability, boolean>
  for (const [name, probe] of Object.entries(PROBES) as Array<[Capability, (details: ArrayObject) => unknown]>) {
    answer[name] = supports(gateway, probe(new ArrayObject({})))
  }
  // Providers with one static webhook URL take gateway-wide notifications, without a model.
  answer.notify ||= supports(gateway, new LocateNotification())
  return answer
}

export function paymentFieldResolvers (paywire: Paywire) {
  const amount = (field: keyof PaymentAmounts) => async (payment: Payment, _args: unknown, context: Context): Promise<number | null> => {
    try {
      return (await readAmounts(paywire, payment))?.[field] ?? null
    } catch (error) {
      logOf(context).error({ err: error, paymentId: payment.id }, 'paywire-graphql: the gateway could not read the amounts')
      return null
    }
  }
  return {
    Payment: {
      totalAmountDecimal: (payment: Payment) => decimal(payment),
      details: (payment: Payment) => publicDetails(payment.details),
      localDetails,
      capturedAmount: amount('captured'),
      refundedAmount: amount('refunded'),
      reversedAmount: amount('reversed'),
      status: async (payment: Payment, _args: unknown, context: Context) => {
        try {
          return graphqlStatus(await readStatus(paywire, payment))
        } catch (error) {
          logOf(context).error({ err: error, paymentId: payment.id }, 'paywire-graphql: the gateway could not read a status')
          return 'UNKNOWN'
        }
      }
    },
    PaymentOutcome: {
      totalAmountDecimal: (outcome: { totalAmount: number, currencyCode: string }) => decimal(outcome)
    }
  }
}
