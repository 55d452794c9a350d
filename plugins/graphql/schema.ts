import { HUMAN_STATUSES } from '../core/engine/index.ts'

/*
 * The SDL Paywire adds to the application's schema. Every operation answers a union of
 * its result and the typed errors it can meet (Vendure's model): clients switch on
 * __typename, and every error also implements PaywireError { code message }.
 */

/** The typed errors each operation can answer, besides its result type. */
export const RESULT_UNIONS = {
  CreatePaymentResult: ['PaymentCreated', 'UnknownGateway', 'InvalidAmount', 'InvalidCurrency', 'InvalidAfterUrl', 'InvalidInput',
    'IdempotencyKeyReused', 'IdempotencyKeyInProgress'],
  RefundPaymentResult: ['PaymentRefunded', 'NotAuthorized', 'InvalidInput', 'InvalidAmount', 'PaymentNotFound', 'UnknownGateway',
    'OperationNotSupported', 'OperationNotAllowed', 'PaymentBusy', 'RefundAmountExceeded', 'ProviderError',
    'IdempotencyKeyReused', 'IdempotencyKeyInProgress'],
  CancelPaymentResult: ['PaymentCanceled', 'NotAuthorized', 'InvalidInput', 'PaymentNotFound', 'UnknownGateway',
    'OperationNotSupported', 'OperationNotAllowed', 'PaymentBusy', 'ProviderError', 'IdempotencyKeyReused', 'IdempotencyKeyInProgress'],
  PaymentResult: ['Payment', 'NotAuthorized', 'InvalidInput', 'PaymentNotFound'],
  PaymentsResult: ['PaymentConnection', 'NotAuthorized', 'InvalidInput'],
  PaymentOutcomeResult: ['PaymentOutcome', 'InvalidInput', 'TokenNotFound']
} as const satisfies Record<string, readonly string[]>

export type ResultUnion = keyof typeof RESULT_UNIONS

/** Error types and the fields they carry besides code and message. */
const ERROR_TYPES: Record<string, string> = {
  UnknownGateway: 'gateway: String!',
  InvalidAmount: 'field: String!',
  InvalidCurrency: 'currencyCode: String!',
  InvalidAfterUrl: 'reason: String!',
  InvalidInput: '"Dotted path of the offending argument or input field (\\"input.number\\", \\"Idempotency-Key\\")."\n  field: String!',
  IdempotencyKeyReused: '',
  IdempotencyKeyInProgress: '',
  NotAuthorized: 'operation: String!',
  PaymentNotFound: '',
  TokenNotFound: '',
  OperationNotAllowed: 'operation: String!\n  status: PaymentStatus!',
  OperationNotSupported: 'operation: String!\n  gateway: String!',
  PaymentBusy: '',
  RefundAmountExceeded: 'requestedAmount: MinorUnits',
  ProviderError: 'provider: String!\n  "The provider\'s error name (PayPal: INSTRUMENT_DECLINED...)."\n  providerCode: String!\n' +
    '  "What the provider\'s support asks for (PayPal\'s debug_id)."\n  debugId: String'
}

export const ERROR_TYPE_NAMES: readonly string[] = Object.keys(ERROR_TYPES)

/** The non-null fields of each error type besides code and message: an error answered as that type must carry them. */
export const REQUIRED_FIELDS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(Object.entries(ERROR_TYPES)
  .map(([name, fields]) => [name, [...fields.matchAll(/^\s*(\w+): \w+!$/gm)].map((match) => match[1] as string)]))

/** Every type name Paywire adds; an application's schema must not use them. */
export const TYPE_NAMES: readonly string[] = [
  'MinorUnits', 'JSONObject', 'PaymentStatus', 'Payment', 'PaymentOutcome', 'GatewayCapabilities', 'Gateway', 'PaywireError',
  ...ERROR_TYPE_NAMES, 'PaymentCreated', 'PaymentRefunded', 'PaymentCanceled', 'PaymentEdge', 'PaymentPageInfo',
  'PaymentConnection', 'PaymentFilter', 'CreatePaymentInput', ...Object.keys(RESULT_UNIONS)
]

const MONEY_FIELDS = `"Integer minor units of the currency (1234 is 12.34 EUR, 500 is 500 JPY)."
  totalAmount: MinorUnits!
  "totalAmount as a decimal string with the currency's ISO 4217 exponent (\\"12.34\\" EUR, \\"500\\" JPY); null for a currency ISO 4217 does not know."
  totalAmountDecimal: String
  currencyCode: String!`

function errorTypes (): string {
  return Object.entries(ERROR_TYPES).map(([name, fields]) =>
    `type ${name} implements PaywireError {\n  code: String!\n  message: String!${fields === '' ? '' : `\n  ${fields}`}\n}`).join('\n')
}

function unions (): string {
  return Object.entries(RESULT_UNIONS).map(([name, members]) => `union ${name} = ${members.join(' | ')}`).join('\n')
}

/**
 * The SDL to extend the application's schema with. Without a mutation root yet, the
 * Mutation type is created and declared as the root.
 */
export function paywireSchema (options: { hasMutationType: boolean }): string {
  const mutation = options.hasMutationType ? 'extend type Mutation' : 'type Mutation'
  return `
"""
A non-negative integer amount in the currency's minor units, up to 2^53 - 1, written as a JSON number.
GraphQL's Int is 32-bit: it would stop at 2,147,483,647 minor units (21,474,836.47 EUR, about 1,300 USD in IDR).
"""
scalar MinorUnits

"A JSON object."
scalar JSONObject

enum PaymentStatus {
  ${HUMAN_STATUSES.map((status) => status.toUpperCase()).join('\n  ')}
}

type Payment {
  id: ID!
  number: String!
  gatewayName: String!
  description: String!
  clientEmail: String!
  clientId: String!
  ${MONEY_FIELDS}
  "Asked from the payment's gateway (GetHumanStatus) at each read; UNKNOWN when the gateway cannot tell."
  status: PaymentStatus!
  "Taken from the payer, in minor units; null when the gateway does not tell (or nothing moved yet)."
  capturedAmount: MinorUnits
  "Given back by refunds, in minor units: below capturedAmount for a partial refund. Null when the gateway does not tell."
  refundedAmount: MinorUnits
  "Taken back by the payer's bank or the provider (reversals, chargebacks), in minor units. Null when the gateway does not tell."
  reversedAmount: MinorUnits
  "The gateway's details, without the shop's local part and without secret-looking keys."
  details: JSONObject!
  "What the shop stored with the payment (CreatePaymentInput.details): kept under details.local, never sent to the gateway."
  localDetails: JSONObject!
  "ISO 8601."
  createdAt: String
  "ISO 8601."
  updatedAt: String
}

"What the holder of an after token (the buyer) may see: what the done page shows."
type PaymentOutcome {
  status: PaymentStatus!
  number: String!
  ${MONEY_FIELDS}
}

type GatewayCapabilities {
  capture: Boolean!
  authorize: Boolean!
  refund: Boolean!
  cancel: Boolean!
  sync: Boolean!
  notify: Boolean!
}

type Gateway {
  name: String!
  "The factory the gateway was configured with; null for gateways added as ready-made objects."
  factory: String
  "What the gateway's actions support; null when the gateway cannot be built (the failure is logged)."
  supports: GatewayCapabilities
}

"Implemented by every typed error. code is a stable PAYWIRE_ERR_* code; message is for humans."
interface PaywireError {
  code: String!
  message: String!
}

${errorTypes()}

type PaymentCreated {
  payment: Payment!
  "Where to send the buyer: the capture URL of the payment's security token."
  captureUrl: String!
  "True when an earlier request with the same Idempotency-Key and input made this payment."
  replayed: Boolean!
}

type PaymentRefunded {
  payment: Payment!
  "The status after the refund."
  status: PaymentStatus!
  replayed: Boolean!
}

type PaymentCanceled {
  payment: Payment!
  "The status after the cancel."
  status: PaymentStatus!
  replayed: Boolean!
}

type PaymentEdge {
  cursor: String!
  node: Payment!
}

type PaymentPageInfo {
  hasNextPage: Boolean!
  "Pass it as after to get the next page; null on an empty page."
  endCursor: String
}

"Payments newest first (a search), or oldest first when the filter looks payments up by ids, number, clientId or clientEmail."
type PaymentConnection {
  edges: [PaymentEdge!]!
  nodes: [Payment!]!
  pageInfo: PaymentPageInfo!
}

"""
Every given field must match. ids, number, clientId and clientEmail look payments up (oldest first; ids in the
order given) and combine only with gateway and currencyCode; without them the filter is a search through the
Payment storage's indexes, newest first, and every field below combines.
"""
input PaymentFilter {
  "At most 100 ids, fetched in one storage call."
  ids: [ID!]
  gateway: String
  number: String
  clientId: String
  clientEmail: String
  currencyCode: String
  "Any of these statuses, as the payment's gateway read it when it was last written."
  status: [PaymentStatus!]
  "Inclusive bounds on when the payment was created, ISO 8601 (2026-01-05T10:00:00Z)."
  createdFrom: String
  createdTo: String
  "Inclusive bounds on when the payment was last written, ISO 8601."
  updatedFrom: String
  updatedTo: String
  "Inclusive bounds on totalAmount, in minor units."
  amountMin: MinorUnits
  amountMax: MinorUnits
  "One of the provider's ids of the payment (PayPal's order or capture id, Stripe's pi_…, ch_…, re_…)."
  providerId: String
  "true: payments the reconciliation sweeper would look at now (pending too long, an authorization about to lapse, a refund or dispute open, a provider call with an unknown outcome); false: the others."
  needsAttention: Boolean
}

input CreatePaymentInput {
  "A gateway name (see Query.gateways)."
  gateway: String!
  "Integer minor units of currencyCode."
  totalAmount: MinorUnits!
  "ISO 4217, alphabetic (EUR) or numeric (978); stored alphabetic."
  currencyCode: String!
  "The shop's order number; generated when omitted."
  number: String
  description: String
  clientEmail: String
  clientId: String
  "Shop-side data kept with the payment under details.local: never sent to the gateway, never able to change its status."
  details: JSONObject
  "Where the buyer lands after paying, instead of the done page; receives the after token as ?paywire_token=. Absolute http(s), on an allowed origin."
  afterUrl: String
}

${unions()}

extend type Query {
  "Back office (authorize: \\"payment\\"). Exactly one of id and number; by number, the oldest match."
  payment(id: ID, number: String): PaymentResult!
  "Back office (authorize: \\"payments\\"). Newest first (oldest first for lookups by ids, number, clientId, clientEmail: see PaymentFilter); first is 1 to the plugin's maxPageSize."
  payments(filter: PaymentFilter, first: Int = 20, after: String): PaymentsResult!
  "The gateways buyers can choose, with what each supports."
  gateways: [Gateway!]!
  "For the page at afterUrl: the outcome of the payment behind its paywire_token."
  paymentOutcome(token: String!): PaymentOutcomeResult!
}

${mutation} {
  "Runs the preparation procedure: stores the payment and creates its capture token. Honours an Idempotency-Key header."
  createPayment(input: CreatePaymentInput!): CreatePaymentResult!
  "Back office (authorize: \\"refundPayment\\"). amount in minor units; omitted refunds what remains. Honours an Idempotency-Key header."
  refundPayment(id: ID!, amount: MinorUnits): RefundPaymentResult!
  "Back office (authorize: \\"cancelPayment\\"). Honours an Idempotency-Key header."
  cancelPayment(id: ID!): CancelPaymentResult!
}
${options.hasMutationType ? '' : '\nextend schema {\n  mutation: Mutation\n}\n'}`
}
