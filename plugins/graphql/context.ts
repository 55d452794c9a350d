import type { MercuriusContext } from 'mercurius'
import { Payment, type Paywire } from '../core/engine/index.ts'
import type { ErrorLog } from './errors.ts'
import { withFields } from './errors.ts'
import type { Idempotency } from './idempotency.ts'
import { IdempotencyKey, check, type AfterUrlOrigins } from './inputs.ts'
import { PaymentLoader } from './loader.ts'
import { PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED } from './codes.ts'

/** The operations the authorize option is asked about. */
export type PaywireGraphqlOperation = 'payment' | 'payments' | 'refundPayment' | 'cancelPayment'

export type Authorize = (context: MercuriusContext, operation: PaywireGraphqlOperation) => boolean | Promise<boolean>

/** What the resolvers share for the application's lifetime. */
export interface Runtime {
  paywire: Paywire
  idempotency: Idempotency
  authorize: Authorize | undefined
  afterUrlOrigins: AfterUrlOrigins | undefined
  maxPageSize: number
}

/** Mercurius' context, whose reply is absent when the query came through app.graphql(). */
export type Context = Omit<MercuriusContext, 'reply'> & { reply?: MercuriusContext['reply'] }

const loaders = new WeakMap<object, PaymentLoader>()

/** The request's payment loader: one per GraphQL execution, made on first use. */
export function loaderOf (runtime: Runtime, context: Context): PaymentLoader {
  let loader = loaders.get(context)
  if (loader === undefined) {
    loader = new PaymentLoader(runtime.paywire.getStorage(Payment))
    loaders.set(context, loader)
  }
  return loader
}

export function logOf (context: Context): ErrorLog {
  return context.reply?.log ?? context.app.log
}

/** The Idempotency-Key header, checked; undefined without one (and for app.graphql() calls). */
export function idempotencyKeyOf (context: Context): string | undefined {
  // Node joins a repeated header into one value ("a, b"), which the pattern refuses.
  const header = context.reply?.request.headers['idempotency-key']
  return header === undefined ? undefined : check(IdempotencyKey, header, 'Idempotency-Key')
}

/** Back-office operations run only when the application's authorize option says yes; without one, never. */
export async function assertAuthorized (runtime: Runtime, context: Context, operation: PaywireGraphqlOperation): Promise<void> {
  const allowed = runtime.authorize === undefined ? false : await runtime.authorize(context as MercuriusContext, operation)
  if (allowed !== true) throw withFields(new PAYWIRE_ERR_GRAPHQL_NOT_AUTHORIZED(operation), { operation })
}
