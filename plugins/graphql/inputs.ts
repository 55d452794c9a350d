import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { errorCodes } from '../core/engine/index.ts'
import { CurrencyCode, GatewayName, MinorUnits, TokenHash } from '../core/schemas.ts'
import { asSentenceTail } from '../core/engine/suggest.ts'
import { withFields } from './errors.ts'
import { PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL } from './codes.ts'

/*
 * The arguments of the GraphQL operations as TypeBox schemas, built on the schemas the
 * HTTP routes use (GatewayName, MinorUnits, CurrencyCode, TokenHash). GraphQL checks the
 * wire types; these check the values, and each failure becomes a typed error.
 */

const Text = (maxLength: number) => Type.String({ maxLength, pattern: '^[^\\u0000-\\u001f\\u007f]*$' })

/** An order number: printable, without surrounding spaces. */
export const OrderNumber = Type.String({
  minLength: 1, maxLength: 64, pattern: '^[^\\s\\u0000-\\u001f\\u007f]([^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f])?$'
})

/** Storage ids: UUIDs by default, anything short and printable from custom storages. */
export const PaymentId = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+$' })

/** The Idempotency-Key header: 1 to 255 visible ASCII characters (a UUID is a good key). */
export const IdempotencyKey = Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' })

export const MAX_DETAILS_BYTES = 16_384

export const CreatePaymentInput = Type.Object({
  gateway: GatewayName,
  totalAmount: MinorUnits,
  currencyCode: CurrencyCode,
  number: Type.Optional(OrderNumber),
  description: Type.Optional(Text(1024)),
  clientEmail: Type.Optional(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })),
  clientId: Type.Optional(Text(128)),
  details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  afterUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 }))
}, { additionalProperties: false })
export type CreatePaymentInput = Static<typeof CreatePaymentInput>

export const RefundPaymentArgs = Type.Object({
  id: PaymentId,
  amount: Type.Optional(MinorUnits)
}, { additionalProperties: false })
export type RefundPaymentArgs = Static<typeof RefundPaymentArgs>

export const CancelPaymentArgs = Type.Object({ id: PaymentId }, { additionalProperties: false })
export type CancelPaymentArgs = Static<typeof CancelPaymentArgs>

export const PaymentArgs = Type.Object({
  id: Type.Optional(PaymentId),
  number: Type.Optional(OrderNumber)
}, { additionalProperties: false })
export type PaymentArgs = Static<typeof PaymentArgs>

const FilterValue = Type.String({ minLength: 1, maxLength: 254 })

/** An ISO 8601 date and time; what it means is checked by the search (PAYWIRE_ERR_VALIDATION naming the field). */
const Time = Type.String({ minLength: 1, maxLength: 64 })

export const PaymentFilter = Type.Object({
  ids: Type.Optional(Type.Array(PaymentId, { maxItems: 100 })),
  gateway: Type.Optional(GatewayName),
  number: Type.Optional(FilterValue),
  clientId: Type.Optional(FilterValue),
  clientEmail: Type.Optional(FilterValue),
  currencyCode: Type.Optional(CurrencyCode),
  // GraphQL's PaymentStatus enum checks the values.
  status: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 20 })),
  createdFrom: Type.Optional(Time),
  createdTo: Type.Optional(Time),
  updatedFrom: Type.Optional(Time),
  updatedTo: Type.Optional(Time),
  amountMin: Type.Optional(MinorUnits),
  amountMax: Type.Optional(MinorUnits),
  providerId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' })),
  needsAttention: Type.Optional(Type.Boolean())
}, { additionalProperties: false })
export type PaymentFilter = Static<typeof PaymentFilter>

export const PaymentsArgs = Type.Object({
  filter: Type.Optional(PaymentFilter),
  first: Type.Integer({ minimum: 1 }),
  after: Type.Optional(Type.String({ minLength: 1, maxLength: 512 }))
}, { additionalProperties: false })
export type PaymentsArgs = Static<typeof PaymentsArgs>

export const PaymentOutcomeArgs = Type.Object({ token: TokenHash }, { additionalProperties: false })
export type PaymentOutcomeArgs = Static<typeof PaymentOutcomeArgs>

/** GraphQL's explicit null means "not given" for optional arguments and input fields. */
export function withoutNulls (value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (item !== null && item !== undefined) copy[key] = withoutNulls(item)
  }
  return copy
}

/** Dotted path of a TypeBox error path: "/input/number" → "input.number". */
function dotted (path: string, prefix: string): string {
  return [prefix, ...path.split('/')].filter((part) => part !== '').join('.')
}

/**
 * The value when it matches the schema; else throws the typed error for the first
 * problem: amounts, currencies, gateways and after URLs have their own types.
 */
export function check<S extends TSchema> (schema: S, value: unknown, prefix = ''): Static<S> {
  const problem = Value.Errors(schema, value).First()
  if (problem === undefined) return value as Static<S>
  const field = dotted(problem.path, prefix)
  const last = field.split('.').at(-1)
  const given = String(problem.value).slice(0, 64)
  if (last === 'totalAmount' || last === 'amount') throw withFields(new errorCodes.PAYWIRE_ERR_INVALID_AMOUNT(given), { field })
  if (last === 'currencyCode' && prefix === 'input') throw withFields(new errorCodes.PAYWIRE_ERR_UNKNOWN_CURRENCY(given), { currencyCode: given })
  if (last === 'gateway' && prefix === 'input') throw withFields(new errorCodes.PAYWIRE_ERR_UNKNOWN_GATEWAY(given, ''), { gateway: given })
  if (last === 'afterUrl') throw invalidAfterUrl(asSentenceTail(problem.message))
  throw withFields(new errorCodes.PAYWIRE_ERR_VALIDATION(field, asSentenceTail(problem.message)), { field })
}

export function invalidAfterUrl (reason: string): Error {
  return withFields(new PAYWIRE_ERR_GRAPHQL_INVALID_AFTER_URL(reason), { reason })
}

/** Which origins afterUrl may point at: a list, or '*' for any (an open redirect: avoid it). */
export type AfterUrlOrigins = readonly string[] | '*'

/**
 * The after URL, normalized, when it is absolute http(s) without credentials and on an
 * allowed origin. Without a configured list only the shop's own origins (its base URL's,
 * or the core plugin's trustRequestBaseUrl list; never the request's Host) are allowed, so
 * a payment link cannot send buyers to another site.
 */
export function checkAfterUrl (value: string, allowed: AfterUrlOrigins | undefined, shopOrigins: () => readonly string[]): string {
  if (!URL.canParse(value)) throw invalidAfterUrl('it is not an absolute URL')
  const url = new URL(value)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidAfterUrl('only http and https URLs are allowed')
  if (url.username !== '' || url.password !== '') throw invalidAfterUrl('it must not carry credentials')
  if (allowed !== '*' && !(allowed ?? shopOrigins()).includes(url.origin)) {
    throw invalidAfterUrl(`origin ${url.origin} is not allowed`)
  }
  return url.href
}
