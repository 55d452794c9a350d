/*
 * The GraphQL layer over the PostgreSQL backend: Idempotency-Key records live in the schema,
 * so a retry that lands on another instance is answered with the first one's payment.
 */
import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import pg from 'pg'
import t from 'tap'
import { offlineGateway } from '../../../gateways/offline/index.ts'
import { paywire } from '../../../plugins/core/index.ts'
import { paywireGraphql } from '../../../plugins/graphql/index.ts'
import { PostgresIdempotencyStore, paywirePostgres } from '../../../plugins/postgres/index.ts'
import { CREATE, gql } from '../graphql/fixtures.ts'
import { DATABASE_URL, dropSchema, schemaName } from './fixtures.ts'

async function instance (t: { teardown: (fn: () => Promise<void>) => void }, schema: string): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(paywirePostgres, { connectionString: DATABASE_URL, schema, migrate: true })
  await app.register(paywire, { baseUrl: 'https://shop.example', backend: app.paywirePostgres, gateways: { cash: { factory: 'offline' } } })
  await app.register(offlineGateway)
  await app.register(paywireGraphql, { mercurius: true, authorize: () => true })
  await app.ready()
  return app
}

t.test('a createPayment retried on another instance answers the first payment: the key lives in PostgreSQL', async (t) => {
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 })
  const schema = schemaName('graphql_idempotency')
  t.teardown(async () => {
    await dropSchema(admin, schema)
    await admin.end()
  })
  const first = await instance(t, schema)
  const second = await instance(t, schema)
  t.ok(first.paywire.getStorageBackend().createIdempotencyStore?.('graphql') instanceof PostgresIdempotencyStore, 'not the in-memory fallback')

  const key = { 'idempotency-key': randomUUID() }
  const input = { input: { gateway: 'cash', totalAmount: 1999, currencyCode: 'EUR' } }
  const created = (await gql(first, CREATE, input, key)).data.createPayment
  const retried = (await gql(second, CREATE, input, key)).data.createPayment
  t.match(created, { __typename: 'PaymentCreated', replayed: false })
  t.match(retried, { __typename: 'PaymentCreated', replayed: true, payment: { id: created.payment.id }, captureUrl: created.captureUrl })
  const { rows } = await admin.query(`SELECT count(*)::int AS payments FROM "${schema}".records WHERE model = 'Payment'`)
  t.same(rows, [{ payments: 1 }], 'one payment for two requests on two instances')
})
