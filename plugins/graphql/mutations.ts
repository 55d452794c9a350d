import { randomBytes } from 'node:crypto'
import {
  Cancel, PAYMENT_OPERATIONS, Payment, Refund, errorCodes, getCurrency, runPaymentOperation, type Generic, type HumanStatusValue
} from '../core/engine/index.ts'
import { assertAuthorized, idempotencyKeyOf, loaderOf, logOf, type Context, type Runtime } from './context.ts'
import { answer, withDefaultFields, withFields } from './errors.ts'
import {
  CancelPaymentArgs, CreatePaymentInput, MAX_DETAILS_BYTES, RefundPaymentArgs, check, checkAfterUrl, withoutNulls
} from './inputs.ts'
import { graphqlStatus } from './payment-fields.ts'
import { PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED, PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND } from './codes.ts'

/**
 * Back-office operations: the engine request they run (as messages name it) and the
 * statuses they may start from; others get OperationNotAllowed without reaching the gateway.
 */
export const BACK_OFFICE_OPERATIONS = {
  refundPayment: PAYMENT_OPERATIONS.refund,
  cancelPayment: PAYMENT_OPERATIONS.cancel
} as const satisfies Record<string, { request: string, from: readonly HumanStatusValue[] }>

type BackOfficeOperation = keyof typeof BACK_OFFICE_OPERATIONS

/** Order numbers for payments created without one: sortable by time, unique enough for an index. */
function generatedNumber (): string {
  return `PW-${Date.now().toString(36).toUpperCase()}-${randomBytes(4).toString('hex').toUpperCase()}`
}

/** The input as it is stored and fingerprinted: nulls dropped, the currency in its alphabetic form. */
function normalizedInput (runtime: Runtime, input: unknown): CreatePaymentInput {
  const value = check(CreatePaymentInput, withoutNulls(input), 'input')
  if (!runtime.paywire.hasGateway(value.gateway)) {
    throw withFields(new errorCodes.PAYWIRE_ERR_UNKNOWN_GATEWAY(value.gateway, ''), { gateway: value.gateway })
  }
  let currencyCode: string
  try {
    currencyCode = getCurrency(value.currencyCode).alpha3
  } catch (error) {
    throw withFields(error as Error, { currencyCode: value.currencyCode })
  }
  if (value.details !== undefined && Buffer.byteLength(JSON.stringify(value.details)) > MAX_DETAILS_BYTES) {
    throw withFields(new errorCodes.PAYWIRE_ERR_VALIDATION('input.details', `must be at most ${MAX_DETAILS_BYTES} bytes of JSON`),
      { field: 'input.details' })
  }
  // The default origins come from the shop's configuration, never from the request's Host.
  const afterUrl = value.afterUrl === undefined ? undefined : checkAfterUrl(value.afterUrl, runtime.afterUrlOrigins, () => runtime.paywire.getShopOrigins())
  return { ...value, currencyCode, afterUrl }
}

interface Created {
  paymentId: string
  captureUrl: string
}

/** The preparation procedure: store the payment and its capture token (with the done or after token), together. */
async function prepare (runtime: Runtime, context: Context, input: CreatePaymentInput): Promise<Created> {
  const storage = runtime.paywire.getStorage(Payment)
  const payment = storage.create()
  payment.gatewayName = input.gateway
  payment.number = input.number ?? generatedNumber()
  payment.totalAmount = input.totalAmount
  payment.currencyCode = input.currencyCode
  payment.description = input.description ?? ''
  payment.clientEmail = input.clientEmail ?? ''
  payment.clientId = input.clientId ?? ''
  payment.details = input.details === undefined ? {} : { local: input.details }
  const token = await runtime.paywire.prepareCapture(input.gateway, payment, input.afterUrl ?? 'done')
  loaderOf(runtime, context).prime(payment)
  return { paymentId: payment.id as string, captureUrl: token.targetUrl }
}

/** `fresh`: read the storage again, for operations that change the payment. */
async function loadPayment (runtime: Runtime, context: Context, id: string, fresh = false): Promise<Payment> {
  const loader = loaderOf(runtime, context)
  if (fresh) loader.clear(id)
  const payment = await loader.load(id)
  if (payment === null) throw new PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND()
  return payment
}

interface Changed {
  paymentId: string
  status: string
}

/**
 * Refund and cancel, through the engine's runPaymentOperation (the operator console runs the
 * same): the payment claimed, its gateway, capability and status checked under the claim,
 * then run as its only writer; a gateway that changed nothing is an OperationNotAllowed.
 * Here only the errors' GraphQL types and fields are added.
 */
async function change (runtime: Runtime, context: Context, id: string, operation: BackOfficeOperation,
  createRequest: (model: unknown) => Generic): Promise<Changed> {
  const spec = BACK_OFFICE_OPERATIONS[operation]
  const outcome = await runPaymentOperation(runtime.paywire, id, spec, createRequest, {
    notFound: () => new PAYWIRE_ERR_GRAPHQL_PAYMENT_NOT_FOUND(),
    notSupported: (gatewayName, request) => new PAYWIRE_ERR_GRAPHQL_OPERATION_NOT_SUPPORTED(gatewayName, request),
    describe: (error, { gateway, status }) => withDefaultFields(error, {
      operation, ...(gateway === undefined ? {} : { gateway }), ...(status === undefined ? {} : { status: graphqlStatus(status) })
    })
  })
  loaderOf(runtime, context).clear(id).prime(outcome.payment)
  return { paymentId: outcome.payment.id as string, status: graphqlStatus(outcome.after) }
}

async function backOffice (runtime: Runtime, context: Context, operation: BackOfficeOperation, id: string, input: unknown,
  run: () => Promise<Changed>) {
  const key = idempotencyKeyOf(context)
  const { result, replayed } = await runtime.idempotency.run(operation, key, input, run)
  return { payment: await loadPayment(runtime, context, result.paymentId), status: result.status, replayed }
}

export function mutationResolvers (runtime: Runtime) {
  return {
    createPayment: (_root: unknown, args: { input: unknown }, context: Context) => answer('CreatePaymentResult', logOf(context), async () => {
      const input = normalizedInput(runtime, args.input)
      const key = idempotencyKeyOf(context)
      // A record the storage refuses (a NUL character in the description) is the input's fault.
      const { result, replayed } = await runtime.idempotency.run('createPayment', key, input, () => prepare(runtime, context, input))
        .catch((error: unknown) => { throw withDefaultFields(error, { field: 'input' }) })
      return { __typename: 'PaymentCreated', payment: await loadPayment(runtime, context, result.paymentId), captureUrl: result.captureUrl, replayed }
    }),

    refundPayment: (_root: unknown, args: unknown, context: Context) => answer('RefundPaymentResult', logOf(context), async () => {
      await assertAuthorized(runtime, context, 'refundPayment')
      const { id, amount } = check(RefundPaymentArgs, withoutNulls(args))
      if (amount === 0) throw withFields(new errorCodes.PAYWIRE_ERR_INVALID_AMOUNT('0'), { field: 'amount' })
      try {
        const changed = await backOffice(runtime, context, 'refundPayment', id, { id, amount }, () =>
          change(runtime, context, id, 'refundPayment', (model) => new Refund(model, { amount })))
        return { __typename: 'PaymentRefunded', ...changed }
      } catch (error) {
        // The gateway's own amount checks (what remains refundable) answer in the same types.
        throw withDefaultFields(error, { requestedAmount: amount ?? null, field: 'amount' })
      }
    }),

    cancelPayment: (_root: unknown, args: unknown, context: Context) => answer('CancelPaymentResult', logOf(context), async () => {
      await assertAuthorized(runtime, context, 'cancelPayment')
      const { id } = check(CancelPaymentArgs, withoutNulls(args))
      const changed = await backOffice(runtime, context, 'cancelPayment', id, { id }, () =>
        change(runtime, context, id, 'cancelPayment', (model) => new Cancel(model)))
      return { __typename: 'PaymentCanceled', ...changed }
    })
  }
}
