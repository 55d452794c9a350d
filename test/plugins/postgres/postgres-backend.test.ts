import t from 'tap'
import { Payment } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend } from '../../../plugins/postgres/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { backendContract } from '../../helpers/backend-contract.ts'
import { testRedis } from '../redis/fixtures.ts'
import { testPostgres } from './fixtures.ts'

const shared = await testPostgres(t, 'backend')

t.test('records, tokens and claims in PostgreSQL', async (t) => {
  backendContract(t, async () => {
    const backend = new PostgresStorageBackend(shared.pool, { schema: shared.schema })
    return { backend, tokens: backend.createTokenStorage(), payments: backend.createStorage(Payment) }
  })
})

t.test('records in PostgreSQL, tokens and claims in Redis', async (t) => {
  backendContract(t, async (t) => {
    const { client, prefix } = await testRedis(t, 'pg-backend')
    const backend = new PostgresStorageBackend(shared.pool, { schema: shared.schema })
    return { backend, tokens: new RedisStorageBackend(client, { keyPrefix: prefix }).createTokenStorage(), payments: backend.createStorage(Payment) }
  })
})
