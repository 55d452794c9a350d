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

/** One return parameter's value: repeated parameters (a=1&a=2) arrive as a list. */
export const ReturnQueryValue = Type.Union([Type.String(), Type.Array(Type.String())])

/**
 * Providers append their own return parameters (PayerID, paymentId, cancelled...): any name
 * is accepted. An object with no declared properties, so OpenAPI generators (@fastify/swagger)
 * document no query parameter instead of turning the schema's own keywords into bogus ones.
 */
export const ReturnQuery = Type.Unsafe<Record<string, string | string[]>>(Type.Object({}, {
  additionalProperties: ReturnQueryValue,
  description: 'Whatever the provider appends when it sends the buyer back (PayerID, paymentId, cancelled...); any name is accepted.'
}))

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

/** A redirect: no body, the target in Location (303 for a used link's result, 302 to a provider or the after URL). */
export const RedirectResponse = Type.Null({
  description: 'A redirect; the target is in Location.',
  // A map of header name to schema, as OpenAPI generators read it.
  headers: { location: Type.String({ description: 'Where the buyer goes next.' }) }
})

/** An answer without a body (204, and 405 to HEAD). */
export const EmptyResponse = Type.Null({ description: 'No body.' })

/** A page for a browser (the buyer's done page, an error page, a gateway's auto-submitting form). */
export const HtmlPage = Type.String({ description: 'An HTML page.' })

/** A coded error: JSON for programs, a page for browsers (Accept: text/html). */
export const ErrorReply = {
  description: 'A coded error (PAYWIRE_ERR_*): JSON, or an HTML page when the client prefers text/html.',
  content: { 'application/json': { schema: ErrorResponse }, 'text/html': { schema: HtmlPage } }
}

const CheckError = Type.Optional(Type.String({ description: '"timeout", or the error\'s code (ECONNREFUSED, PAYWIRE_ERR_STORAGE_UNAVAILABLE); never its message.' }))
const LatencyMs = Type.Optional(Type.Integer({ minimum: 0, description: 'How long the check took (ms).' }))

/** Paywire.health()'s report (engine/setup/health.ts), as the health route answers it with 200 or 503. */
export const HealthReportSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  checkedAt: Type.String({ format: 'date-time' }),
  checks: Type.Object({
    storage: Type.Object({
      status: Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('unchecked')]),
      backend: Type.String({ description: 'The storage backend\'s class name.' }),
      latencyMs: LatencyMs,
      error: CheckError
    }),
    events: Type.Object({
      status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
      delivering: Type.Boolean(),
      backlog: Type.Integer({ minimum: 0, description: 'Payments with an event due now (counted up to 1000).' }),
      oldestDueMs: Type.Integer({ minimum: 0, description: 'How long the oldest due event has waited (ms).' }),
      dead: Type.Integer({ minimum: 0, description: 'Events that failed every attempt (paywire.events.dead()).' }),
      latencyMs: LatencyMs,
      error: CheckError
    })
  })
}, { description: 'What was checked; 200 when ok or degraded, 503 when down.' })
