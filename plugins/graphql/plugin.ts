import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import mercurius from 'mercurius'
import { MemoryIdempotencyStore, errorCodes, type IdempotencyStore } from '../core/engine/index.ts'
import type { Runtime } from './context.ts'
import { DEFAULT_IDEMPOTENCY, Idempotency } from './idempotency.ts'
import { mutationResolvers } from './mutations.ts'
import { addLimits, defaultLimits } from './limits.ts'
import { DEFAULT_MAX_PAGE_SIZE, mercuriusOptions, validateOptions, type PaywireGraphqlOptions } from './options.ts'
import { paymentFieldResolvers } from './payment-fields.ts'
import { queryResolvers } from './queries.ts'
import { JSONObjectScalar, MinorUnitsScalar } from './scalars.ts'
import { RESULT_UNIONS, paywireSchema } from './schema.ts'
import { PAYWIRE_ERR_GRAPHQL_SCHEMA_CONFLICT } from './codes.ts'

/** Results and errors carry __typename; the only member without one is a payment, whatever its storage made it. */
function resolveType (value: { __typename?: string }): string {
  return value.__typename ?? 'Payment'
}

/**
 * Idempotency records live where payments live (the backend's store, "<prefix>graphql:<key>"
 * in Redis), so they are as shared and durable as the payments; in memory when the backend has none.
 */
function defaultStore (app: FastifyInstance): IdempotencyStore {
  return app.paywire.getStorageBackend().createIdempotencyStore?.('graphql') ?? new MemoryIdempotencyStore()
}

async function ensureMercurius (app: FastifyInstance, option: PaywireGraphqlOptions['mercurius']): Promise<void> {
  const registered = app.hasDecorator('graphql')
  if (option === undefined || option === false) {
    if (!registered) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('mercurius', 'mercurius is not registered: register it before paywire-graphql, or pass mercurius: true')
    return
  }
  if (registered) throw new errorCodes.PAYWIRE_ERR_INVALID_OPTION('mercurius', 'mercurius is already registered: leave the option out, or let paywire-graphql register it')
  await app.register(mercurius, mercuriusOptions(option))
}

function extendSchema (app: FastifyInstance, runtime: Runtime): void {
  const mutation = app.graphql.schema.getMutationType()
  try {
    app.graphql.extendSchema(paywireSchema({ hasMutationType: mutation !== undefined && mutation !== null }))
  } catch (error) {
    throw new PAYWIRE_ERR_GRAPHQL_SCHEMA_CONFLICT((error as Error).message)
  }
  const abstract: Record<string, { resolveType: typeof resolveType }> = { PaywireError: { resolveType } }
  for (const name of Object.keys(RESULT_UNIONS)) abstract[name] = { resolveType }
  app.graphql.defineResolvers({
    MinorUnits: MinorUnitsScalar,
    JSONObject: JSONObjectScalar,
    ...abstract,
    ...paymentFieldResolvers(runtime.paywire),
    Query: queryResolvers(runtime),
    Mutation: mutationResolvers(runtime)
  } as Parameters<typeof app.graphql.defineResolvers>[0])
}

const paywireGraphqlPlugin: FastifyPluginAsync<PaywireGraphqlOptions> = async function paywireGraphql (app, options) {
  const afterUrlOrigins = validateOptions(options)
  await ensureMercurius(app, options.mercurius)
  const { store = defaultStore(app), ...settings } = options.idempotency ?? {}
  const runtime: Runtime = {
    paywire: app.paywire,
    idempotency: new Idempotency(store, { ...DEFAULT_IDEMPOTENCY, ...settings }),
    authorize: options.authorize,
    afterUrlOrigins,
    maxPageSize: options.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE
  }
  extendSchema(app, runtime)
  if (options.limits !== false) addLimits(app, { ...defaultLimits(), ...options.limits })
}

/**
 * GraphQL for Paywire on mercurius: createPayment for shop frontends, payment reads,
 * refunds and cancels for back offices. Register it after the paywire plugin.
 */
export const paywireGraphql = fp(paywireGraphqlPlugin, {
  name: 'paywire-graphql',
  fastify: '5.x',
  dependencies: ['paywire'],
  decorators: { fastify: ['paywire'] }
})
export default paywireGraphql
