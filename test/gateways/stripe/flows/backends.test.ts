import t from 'tap'
import { PostgresStorageBackend } from '../../../../plugins/postgres/index.ts'
import { RedisStorageBackend } from '../../../../plugins/redis/index.ts'
import { testPostgres } from '../../../plugins/postgres/fixtures.ts'
import { testRedis } from '../../../plugins/redis/fixtures.ts'
import { stripeLife } from '../fixtures/life.ts'

t.test('on Redis: every Stripe flow, each ending with Paywire and Stripe in agreement', async (t) => {
  const { client, prefix } = await testRedis(t, 'stripe-life')
  await stripeLife(t, new RedisStorageBackend(client, { keyPrefix: prefix }))
})

t.test('on PostgreSQL: every Stripe flow, each ending with Paywire and Stripe in agreement', async (t) => {
  const { pool, schema } = await testPostgres(t, 'stripe_life')
  await stripeLife(t, new PostgresStorageBackend(pool, { schema }))
})
