import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import t from 'tap'
import { Payment } from '../../../plugins/core/index.ts'
import { MemoryIdempotencyStore } from '../../../plugins/graphql/index.ts'
import {
  ADMIN, CREATE, REFUND, REDIS_URL, buildGraphqlApp, capturedPayment, gql, storedPayment, type GraphqlTestApp
} from './fixtures.ts'

const input = (fields: Record<string, unknown> = {}) => ({ input: { gateway: 'cash', totalAmount: 1999, currencyCode: 'EUR', ...fields } })

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

const backends: Array<[string, (t: Test) => Promise<GraphqlTestApp>]> = [
  ['memory', async (t) => {
    const built = await buildGraphqlApp()
    t.teardown(() => built.app.close())
    return built
  }],
  ['redis', async (t) => {
    const prefix = `test:graphql-idempotency:${randomUUID()}:`
    const built = await buildGraphqlApp({ redisKeyPrefix: prefix })
    const redis = new Redis(REDIS_URL)
    t.teardown(async () => {
      await built.app.close()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.unlink(keys)
      await redis.quit()
    })
    return built
  }]
]

async function paymentCount (built: GraphqlTestApp): Promise<number> {
  return (await built.app.paywire.getStorage(Payment).findBy({})).length
}

for (const [backend, build] of backends) {
  t.test(`${backend}: a retried createPayment answers the same payment and URL`, async (t) => {
    const built = await build(t)
    const { app } = built
    const key = { 'idempotency-key': randomUUID() }
    const first = (await gql(app, CREATE, input({ details: { b: 1, a: 2 } }), key)).data.createPayment
    const retry = (await gql(app, CREATE, input({ details: { a: 2, b: 1 }, currencyCode: 'eur' }), key)).data.createPayment
    t.match(first, { __typename: 'PaymentCreated', replayed: false })
    t.match(retry, { __typename: 'PaymentCreated', replayed: true, captureUrl: first.captureUrl, payment: { id: first.payment.id } },
      'the same input, whatever its field order or currency spelling')
    t.equal(await paymentCount(built), 1)

    const other = (await gql(app, CREATE, input({ totalAmount: 2999 }), key)).data.createPayment
    t.match(other, { __typename: 'IdempotencyKeyReused', code: 'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED', message: /createPayment/ })
    const fresh = (await gql(app, CREATE, input({ totalAmount: 2999 }), { 'idempotency-key': randomUUID() })).data.createPayment
    t.match(fresh, { __typename: 'PaymentCreated', replayed: false })
    t.not(fresh.payment.id, first.payment.id)
    t.equal(await paymentCount(built), 2)
  })

  t.test(`${backend}: concurrent retries make one payment`, async (t) => {
    const built = await build(t)
    const key = { 'idempotency-key': randomUUID() }
    const answers = await Promise.all(Array.from({ length: 12 }, () => gql(built.app, CREATE, input(), key)))
    const created = answers.map((answer) => answer.data.createPayment)
    t.ok(created.every((answer) => answer.__typename === 'PaymentCreated'), 'every retry gets the payment')
    t.equal(new Set(created.map((answer) => answer.payment.id)).size, 1, 'one payment id')
    t.equal(new Set(created.map((answer) => answer.captureUrl)).size, 1, 'one capture URL')
    t.equal(created.filter((answer) => !answer.replayed).length, 1, 'made once, replayed for the others')
    t.equal(await paymentCount(built), 1)

    const distinct = await Promise.all(Array.from({ length: 5 }, () => gql(built.app, CREATE, input(), { 'idempotency-key': randomUUID() })))
    t.equal(new Set(distinct.map((answer) => answer.data.createPayment.payment.id)).size, 5, 'different keys are different payments')
  })

  t.test(`${backend}: a retried refund runs once`, async (t) => {
    const built = await build(t)
    const { app } = built
    const id = await capturedPayment(app)
    const headers = { ...ADMIN, 'idempotency-key': randomUUID() }
    const answers = await Promise.all(Array.from({ length: 4 }, () => gql(app, REFUND, { id, amount: 500 }, headers)))
    const refunds = answers.map((answer) => answer.data.refundPayment)
    t.ok(refunds.every((answer) => answer.__typename === 'PaymentRefunded' && answer.status === 'REFUNDED'))
    t.equal(refunds.filter((answer) => !answer.replayed).length, 1)
    t.match(await app.paywire.getStorage(Payment).find(id), { details: { refunded_amount: 500 } }, 'refunded once')
    t.match((await gql(app, REFUND, { id, amount: 600 }, headers)).data.refundPayment, { __typename: 'IdempotencyKeyReused' })
  })
}

t.test('only successes are kept: after a typed error the same key runs again', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { details: {} })
  const headers = { ...ADMIN, 'idempotency-key': randomUUID() }
  t.match((await gql(app, REFUND, { id: payment.id }, headers)).data.refundPayment, { __typename: 'OperationNotAllowed', status: 'NEW' })
  const storage = app.paywire.getStorage(Payment)
  await storage.update(Object.assign(await storage.find(payment.id as string) as Payment, { details: { status: 'captured', amount: 1999 } }))
  t.match((await gql(app, REFUND, { id: payment.id }, headers)).data.refundPayment, { __typename: 'PaymentRefunded', replayed: false })
})

t.test('a retry that outwaits waitMs is told the operation is still running', async (t) => {
  let release = (): void => {}
  const provider = { refunds: 0, gate: new Promise<void>((resolve) => { release = resolve }) }
  const { app } = await buildGraphqlApp({ provider, graphql: { idempotency: { waitMs: 0 } } })
  t.teardown(() => app.close())
  const payment = await storedPayment(app, { gatewayName: 'provider', details: { state: 'COMPLETED' } })
  const headers = { ...ADMIN, 'idempotency-key': randomUUID() }
  const first = gql(app, REFUND, { id: payment.id }, headers)
  while (provider.refunds === 0) await new Promise((resolve) => setImmediate(resolve))
  t.match((await gql(app, REFUND, { id: payment.id }, headers)).data.refundPayment,
    { __typename: 'IdempotencyKeyInProgress', code: 'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS' })
  release()
  t.match((await first).data.refundPayment, { __typename: 'PaymentRefunded' })
  t.match((await gql(app, REFUND, { id: payment.id }, headers)).data.refundPayment, { __typename: 'PaymentRefunded', replayed: true })
  t.equal(provider.refunds, 1)
})

t.test('malformed Idempotency-Key headers are InvalidInput', async (t) => {
  const { app, storage } = await buildGraphqlApp()
  t.teardown(() => app.close())
  for (const key of ['', 'x'.repeat(256), 'two words']) {
    t.match((await gql(app, CREATE, input(), { 'idempotency-key': key })).data.createPayment,
      { __typename: 'InvalidInput', field: 'Idempotency-Key' }, JSON.stringify(key.slice(0, 10)))
  }
  const repeated = await app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', 'idempotency-key': ['a', 'b'] },
    payload: JSON.stringify({ query: CREATE, variables: input() })
  })
  t.match(repeated.json().data.createPayment, { __typename: 'InvalidInput', field: 'Idempotency-Key' }, 'a repeated header')
  t.equal(storage.calls.update, 0)
})

t.test('app.graphql() calls work without HTTP (and without an Idempotency-Key)', async (t) => {
  const { app } = await buildGraphqlApp()
  t.teardown(() => app.close())
  const result = await app.graphql(CREATE, {}, input())
  t.match(result.data, { createPayment: { __typename: 'PaymentCreated', replayed: false, payment: { status: 'NEW' } } })
})

t.test('with the Redis backend, a retry reaching another instance of the shop replays the first answer', async (t) => {
  const prefix = `test:graphql-idempotency:${randomUUID()}:`
  const first = await buildGraphqlApp({ redisKeyPrefix: prefix })
  const second = await buildGraphqlApp({ redisKeyPrefix: prefix })
  const redis = new Redis(REDIS_URL)
  t.teardown(async () => {
    await first.app.close()
    await second.app.close()
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.unlink(keys)
    await redis.quit()
  })
  const key = { 'idempotency-key': randomUUID() }
  const made = (await gql(first.app, CREATE, input(), key)).data.createPayment
  const replayed = (await gql(second.app, CREATE, input(), key)).data.createPayment
  t.match(replayed, { replayed: true, captureUrl: made.captureUrl, payment: { id: made.payment.id } })
  const records = await redis.keys(`${prefix}graphql:idempotency:createPayment:*`)
  t.equal(records.length, 1, 'the record sits next to the payments, under the backend\'s prefix')
  const ttl = await redis.pttl(records[0] as string)
  t.ok(ttl > 86_000_000 && ttl <= 86_400_000, 'kept for a day by default')
})

t.test('an application can bring its own idempotency store', async (t) => {
  const store = new MemoryIdempotencyStore()
  const { app } = await buildGraphqlApp({ graphql: { idempotency: { store, ttlSeconds: 60 } } })
  t.teardown(() => app.close())
  await gql(app, CREATE, input(), { 'idempotency-key': randomUUID() })
  t.equal(store.size, 1)
})
