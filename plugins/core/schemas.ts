import { Type, type Static } from '@sinclair/typebox'
import { HUMAN_STATUSES } from './engine/index.ts'

/*
 * Schemas shared by the routes, the GraphQL layer and the tests.
 */

/** A token hash as the token factory makes them (43 base64url characters), with room for custom stores. */
export const TokenHash = Type.String({ pattern: '^[A-Za-z0-9_-]{16,128}$' })

export const TokenParams = Type.Object({ token: TokenHash })
export type TokenParams = Static<typeof TokenParams>

export const GatewayName = Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' })

export const GatewayParams = Type.Object({ gateway: GatewayName })
export type GatewayParams = Static<typeof GatewayParams>

/** Providers append their own return parameters (PayerID, paymentId, cancelled...). */
export const ReturnQuery = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]))

export const HumanStatusSchema = Type.Union(HUMAN_STATUSES.map((status) => Type.Literal(status)))

/** Integer minor units: 1234 is 12.34 EUR, 500 is 500 JPY. */
export const MinorUnits = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })
export const CurrencyCode = Type.String({ pattern: '^[A-Za-z]{3}$|^[0-9]{3}$' })

/** How much moved (GetHumanStatus amounts), in the payment currency's minor units. */
export const PaymentAmountsSchema = Type.Object({
  captured: MinorUnits,
  refunded: MinorUnits,
  reversed: MinorUnits
})

/**
 * The done answer. By default only what the buyer needs; the core plugin's
 * `pages.doneFields` opts into more, field by field.
 */
export const DoneResponse = Type.Object({
  status: HumanStatusSchema,
  /** A human sentence for the status ("Your payment was received."). */
  message: Type.String(),
  payment: Type.Object({
    number: Type.Optional(Type.String()),
    totalAmount: Type.Optional(MinorUnits),
    currencyCode: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    clientEmail: Type.Optional(Type.String()),
    clientId: Type.Optional(Type.String()),
    gatewayName: Type.Optional(Type.String()),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
  }),
  /** When the gateway knows them: a partial refund reads refunded < captured. */
  amounts: Type.Optional(PaymentAmountsSchema)
})
export type DoneResponse = Static<typeof DoneResponse>

export const ErrorResponse = Type.Object({
  statusCode: Type.Integer(),
  code: Type.String(),
  error: Type.String(),
  message: Type.String()
})
export type ErrorResponse = Static<typeof ErrorResponse>
